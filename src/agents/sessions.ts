import { createHash, randomBytes } from "node:crypto";
import { recordAudit } from "../audit/record.js";
import type { Principal } from "../auth/principal.js";
import { isRole } from "../auth/roles.js";
import { newId } from "../db/ids.js";
import { AppError } from "../errors.js";
import type { Services } from "../services.js";
import { effectiveRateLimit } from "../tenants/settings.js";
import { verifyPassword } from "./passwords.js";

const tokenPrefix = "prs_";

const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

export function looksLikeSessionToken(value: string): boolean {
  return value.startsWith(tokenPrefix);
}

export interface IssuedSession {
  token: string;
  expiresAt: Date;
  userId: string;
}

/**
 * Checks a dashboard user's e-mail and password and opens a session. The e-mail is unique per tenant only,
 * so the login looks across tenants (the one unscoped read of users); a person with accounts at several
 * tenants names the tenant. Every failure is the same 401, whatever was wrong. A wrong password for an account is
 * recorded in that account's tenant's audit trail, a success too; an e-mail no account has concerns no tenant.
 */
export async function logIn(
  services: Services,
  input: { email: string; password: string; tenantId?: string | null },
  clientIp: string,
): Promise<IssuedSession> {
  await services.loginThrottle.admit(input.email, clientIp);
  const candidates = await services.db.prisma.user.findMany({
    where: { email: input.email.toLowerCase(), deactivatedAt: null, ...(input.tenantId ? { tenantId: input.tenantId } : {}) },
    select: { id: true, tenantId: true, passwordHash: true, email: true, role: true },
    take: 10,
  });
  const matches = [];
  for (const user of candidates.length ? candidates : [{ id: "", tenantId: "", passwordHash: null, email: "", role: "" }]) {
    if (await verifyPassword(user.passwordHash, input.password)) matches.push(user);
  }
  if (matches.length) await services.loginThrottle.succeeded(input.email, clientIp);
  if (matches.length > 1) {
    throw new AppError("VALIDATION", "This e-mail has accounts at several tenants: name the tenant", [
      { path: "tenantId", message: "required for this e-mail" },
    ]);
  }
  const [user] = matches;
  const target = (account: { id: string }) => ({ type: "agent", id: account.id });
  if (!user) {
    for (const account of candidates) {
      await recordAudit(services, {
        tenantId: account.tenantId,
        actor: { kind: "anonymous", label: input.email },
        ip: clientIp,
        action: "login.failed",
        target: target(account),
      });
    }
    throw new AppError("AUTH_INVALID", "Wrong e-mail or password");
  }
  const token = `${tokenPrefix}${randomBytes(32).toString("base64url")}`;
  const expiresAt = new Date(Date.now() + services.config.SESSION_TTL_HOURS * 3600_000);
  // Each login clears the user's dead sessions, so the table holds only the ones that can still be used.
  await services.db.prisma.userSession.deleteMany({
    where: { userId: user.id, OR: [{ expiresAt: { lt: new Date() } }, { revokedAt: { not: null } }] },
  });
  await services.db.prisma.userSession.create({
    data: { id: newId("ses"), tenantId: user.tenantId, userId: user.id, tokenHash: hashToken(token), expiresAt },
  });
  await recordAudit(services, {
    tenantId: user.tenantId,
    actor: { kind: "user", id: user.id, label: user.email, role: user.role },
    ip: clientIp,
    action: "login.succeeded",
    target: target(user),
  });
  return { token, expiresAt, userId: user.id };
}

/** The user behind a session token, with the role they have now: a demotion or removal applies at the next request. */
export async function principalForSession(services: Services, token: string): Promise<Principal | null> {
  const session = await services.db.prisma.userSession.findUnique({
    where: { tokenHash: hashToken(token) },
    include: { user: { select: { role: true, email: true, deactivatedAt: true } }, tenant: { select: { settings: true } } },
  });
  if (!session || session.revokedAt || session.expiresAt.getTime() <= Date.now()) return null;
  if (session.user.deactivatedAt || !isRole(session.user.role)) return null;
  return {
    kind: "user",
    id: session.userId,
    sessionId: session.id,
    tenantId: session.tenantId,
    role: session.user.role,
    label: session.user.email,
    rateLimit: effectiveRateLimit(session.tenant.settings, services.config),
  };
}
