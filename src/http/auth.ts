import type { RequestHandler } from "express";
import { looksLikeSessionToken, principalForSession } from "../agents/sessions.js";
import { hashApiKey } from "../auth/api-keys.js";
import type { Principal } from "../auth/principal.js";
import { isRole } from "../auth/roles.js";
import { AppError } from "../errors.js";
import type { Services } from "../services.js";
import { effectiveRateLimit } from "../tenants/settings.js";

// lastUsedAt is informative; writing it on every request would turn each read into a write.
const lastUsedPrecisionMs = 60_000;

/** The API key or session token of a request: `Authorization: Bearer <key>` or `x-api-key: <key>`. */
export function credentialOf(headers: { authorization?: string; "x-api-key"?: string | string[] }): string | null {
  const bearer = headers.authorization?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
  if (bearer) return bearer;
  const header = headers["x-api-key"];
  const value = Array.isArray(header) ? header[0] : header;
  return value?.trim() || null;
}

export async function principalForApiKey(services: Services, key: string): Promise<Principal | null> {
  const found = await services.tenants.apiKey(hashApiKey(key));
  if (!found || found.revokedAt || !isRole(found.role)) return null;
  const tenant = await services.tenants.tenant(found.tenantId);
  if (!tenant) return null;
  if (!found.lastUsedAt || Date.now() - found.lastUsedAt.getTime() > lastUsedPrecisionMs) {
    // The cached key remembers it too, or every request until the next reload would write it again.
    found.lastUsedAt = new Date();
    void services.db.prisma.apiKey
      .update({ where: { id: found.id }, data: { lastUsedAt: found.lastUsedAt } })
      .catch((err) => services.logger.warn({ err }, "could not record API key use"));
  }
  return {
    kind: "apiKey",
    id: found.id,
    tenantId: found.tenantId,
    role: found.role,
    label: found.prefix,
    rateLimit: effectiveRateLimit(tenant.settings, services.config),
  };
}

/** An API key's or a dashboard session's caller, or null when the credential is unknown, revoked or expired. */
export function principalForCredential(services: Services, credential: string): Promise<Principal | null> {
  return looksLikeSessionToken(credential) ? principalForSession(services, credential) : principalForApiKey(services, credential);
}

/**
 * Resolves the caller from the request's credential. A rejected credential is only marked here:
 * the rate limiter counts it by client IP first, then `rejectInvalidCredential` answers 401.
 */
export function authenticate(services: Services): RequestHandler {
  return async (req, _res, next) => {
    const credential = credentialOf(req.headers as Record<string, string>);
    req.principal = null;
    if (credential) {
      req.principal = await principalForCredential(services, credential);
      req.credentialRejected = req.principal === null;
    }
    next();
  };
}

export const rejectInvalidCredential: RequestHandler = (req, _res, next) => {
  if (!req.credentialRejected) return next();
  const session = looksLikeSessionToken(credentialOf(req.headers as Record<string, string>) ?? "");
  throw new AppError("AUTH_INVALID", session ? "Invalid or expired session: log in again" : "Invalid or revoked API key");
};

export const requireAuth: RequestHandler = (req, _res, next) => {
  if (!req.principal) throw new AppError("AUTH_INVALID", "Missing API key: send Authorization: Bearer <key> or x-api-key");
  next();
};
