import type { Services } from "../services.js";

/** Where a sign-in attempt came from, as the session will record it. */
export interface SignInClient {
  clientIp: string;
  userAgent: string;
}

/** How a session was opened: a password or the tenant's OpenID Connect provider, with a code when two-factor is on. */
export type SessionMethod = "password" | "password+mfa" | "oidc" | "oidc+mfa";

// The one place each outcome of a sign-in is reported: an audit trail records them by adding a call here.

export function loginSucceeded(
  services: Services,
  event: { tenantId: string; userId: string; sessionId: string; method: SessionMethod; client: SignInClient },
): void {
  services.logger.info(
    {
      tenantId: event.tenantId,
      userId: event.userId,
      sessionId: event.sessionId,
      method: event.method,
      ip: event.client.clientIp,
    },
    "login succeeded",
  );
}

/** A refused sign-in; the user when it is known (a wrong code, a provider's user without an account here…). */
export function loginFailed(
  services: Services,
  event: { tenantId?: string; userId?: string; method: "password" | "mfa" | "oidc"; reason: string; client: SignInClient },
): void {
  services.logger.info(
    { tenantId: event.tenantId, userId: event.userId, method: event.method, reason: event.reason, ip: event.client.clientIp },
    "login failed",
  );
}
