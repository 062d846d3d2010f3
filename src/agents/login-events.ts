import { recordAudit } from "../audit/record.js";
import type { Services } from "../services.js";

/** Where a sign-in attempt came from, as the session will record it. */
export interface SignInClient {
  clientIp: string;
  userAgent: string;
}

/** How a session was opened: a password or the tenant's OpenID Connect provider, with a code when two-factor is on. */
export type SessionMethod = "password" | "password+mfa" | "oidc" | "oidc+mfa";

// The one place each outcome of a sign-in is reported: the log, and the audit trail of the tenant it concerns.

/** A session opened, for the user (their e-mail and role as the audit trail labels an actor). */
export async function loginSucceeded(
  services: Services,
  event: {
    tenantId: string;
    user: { id: string; email: string; role: string };
    sessionId: string;
    method: SessionMethod;
    client: SignInClient;
  },
): Promise<void> {
  services.logger.info(
    {
      tenantId: event.tenantId,
      userId: event.user.id,
      sessionId: event.sessionId,
      method: event.method,
      ip: event.client.clientIp,
    },
    "login succeeded",
  );
  await recordAudit(services, {
    tenantId: event.tenantId,
    actor: { kind: "user", id: event.user.id, label: event.user.email, role: event.user.role },
    ip: event.client.clientIp,
    action: "login.succeeded",
    target: { type: "agent", id: event.user.id },
    details: { method: event.method, sessionId: event.sessionId },
  });
}

/**
 * A refused sign-in. `accounts`: the accounts it was an attempt at (a wrong password: every active account with the
 * e-mail typed, which is `claimed`; a wrong code: the user of the challenge), empty when none is known; `tenantId`
 * when only the tenant is (its provider refused). The log line leaves the e-mail typed out: personal data; the audit
 * trail of each tenant concerned keeps it, as the actor of the attempt. An attempt that names no known account or
 * tenant concerns no tenant's trail.
 */
export async function loginFailed(
  services: Services,
  event: {
    method: "password" | "mfa" | "oidc";
    reason: string;
    client: SignInClient;
    accounts?: Array<{ id: string; tenantId: string }>;
    tenantId?: string;
    claimed?: string;
  },
): Promise<void> {
  services.logger.info(
    {
      tenantId: event.tenantId ?? event.accounts?.[0]?.tenantId,
      userIds: event.accounts?.map((a) => a.id),
      method: event.method,
      reason: event.reason,
      ip: event.client.clientIp,
    },
    "login failed",
  );
  const actor = { kind: "anonymous" as const, label: event.claimed ?? null };
  const entry = {
    actor,
    ip: event.client.clientIp,
    action: "login.failed",
    details: { method: event.method, reason: event.reason },
  };
  const accounts = event.accounts ?? [];
  for (const account of accounts) {
    await recordAudit(services, { ...entry, tenantId: account.tenantId, target: { type: "agent", id: account.id } });
  }
  if (!accounts.length && event.tenantId) await recordAudit(services, { ...entry, tenantId: event.tenantId, target: null });
}
