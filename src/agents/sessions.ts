import { createHash, randomBytes } from "node:crypto";
import type { Principal } from "../auth/principal.js";
import { isRole } from "../auth/roles.js";
import { newId } from "../db/ids.js";
import { scopeToTenant } from "../db/tenant-scope.js";
import { AppError } from "../errors.js";
import type { Services } from "../services.js";
import { effectiveRateLimit } from "../tenants/settings.js";
import { loginFailed, loginSucceeded, type SessionMethod, type SignInClient } from "./login-events.js";
import { consumeTicket, findTicket, type IssuedTicket, issueTicket, type SignInMethod } from "./login-tickets.js";
import { requiresMfa, verifySecondFactor } from "./mfa.js";
import { verifyPassword } from "./passwords.js";

const tokenPrefix = "prs_";
// lastUsedAt is informative; writing it on every request would turn each read into a write.
const lastUsedPrecisionMs = 60_000;
const userAgentMaxLength = 300;

const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

export function looksLikeSessionToken(value: string): boolean {
  return value.startsWith(tokenPrefix);
}

export interface IssuedSession {
  token: string;
  expiresAt: Date;
  userId: string;
}

/** What a first sign-in step gives: a session, or (two-factor on) a challenge to answer with a code. */
export interface SignInOutcome {
  session: IssuedSession | null;
  mfaChallenge: IssuedTicket | null;
}

/**
 * Checks a dashboard user's e-mail and password. The e-mail is unique per tenant only, so the login looks across
 * tenants (the one unscoped read of users); a person with accounts at several tenants names the tenant. Every
 * failure is the same 401, whatever was wrong. A user with two-factor sign-in gets a challenge, not a session.
 */
export async function logIn(
  services: Services,
  input: { email: string; password: string; tenantId?: string | null },
  client: SignInClient,
): Promise<SignInOutcome> {
  try {
    await services.loginThrottle.admit(input.email, client.clientIp);
  } catch (error) {
    await loginFailed(services, {
      method: "password",
      reason: "throttled",
      client,
      tenantId: input.tenantId ?? undefined,
      claimed: input.email,
    });
    throw error;
  }
  const candidates = await services.db.prisma.user.findMany({
    where: { email: input.email.toLowerCase(), deactivatedAt: null, ...(input.tenantId ? { tenantId: input.tenantId } : {}) },
    select: { id: true, tenantId: true, passwordHash: true, mfaEnabledAt: true },
    take: 10,
  });
  const matches = [];
  for (const user of candidates.length ? candidates : [{ id: "", tenantId: "", passwordHash: null, mfaEnabledAt: null }]) {
    if (await verifyPassword(user.passwordHash, input.password)) matches.push(user);
  }
  if (matches.length) await services.loginThrottle.succeeded(input.email, client.clientIp);
  if (matches.length > 1) {
    throw new AppError("VALIDATION", "This e-mail has accounts at several tenants: name the tenant", [
      { path: "tenantId", message: "required for this e-mail" },
    ]);
  }
  const [user] = matches;
  if (!user) {
    await loginFailed(services, {
      method: "password",
      reason: "wrong e-mail or password",
      client,
      accounts: candidates.map(({ id, tenantId }) => ({ id, tenantId })),
      tenantId: input.tenantId ?? undefined,
      claimed: input.email,
    });
    throw new AppError("AUTH_INVALID", "Wrong e-mail or password");
  }
  return continueSignIn(services, user, "password", client);
}

/** After the first factor (a password, the tenant's provider): a session, or a challenge when two-factor is on. */
export async function continueSignIn(
  services: Services,
  user: { id: string; tenantId: string; mfaEnabledAt: Date | null },
  method: SignInMethod,
  client: SignInClient,
): Promise<SignInOutcome> {
  if (user.mfaEnabledAt) return { session: null, mfaChallenge: await issueTicket(services, user, "mfa", method) };
  return { session: await openSession(services, user, method, client), mfaChallenge: null };
}

/** The second step of a sign-in with two-factor on: the challenge of the first step and a code. */
export async function completeMfaSignIn(
  services: Services,
  input: { challengeToken: string; code: string },
  client: SignInClient,
): Promise<IssuedSession> {
  const ticket = await findTicket(services, input.challengeToken, "mfa");
  if (!ticket) {
    await loginFailed(services, { method: "mfa", reason: "unknown or expired challenge", client });
    throw new AppError("AUTH_INVALID", "The sign-in expired or is unknown: log in again");
  }
  try {
    await verifySecondFactor(
      services,
      scopeToTenant(services.db.prisma, ticket.tenantId),
      ticket.userId,
      input.code,
      client.clientIp,
    );
  } catch (error) {
    await loginFailed(services, {
      method: "mfa",
      reason: "wrong code",
      client,
      accounts: [{ id: ticket.userId, tenantId: ticket.tenantId }],
    });
    throw error;
  }
  if (!(await consumeTicket(services, input.challengeToken))) {
    throw new AppError("AUTH_INVALID", "The sign-in expired or is unknown: log in again");
  }
  return openSession(services, { id: ticket.userId, tenantId: ticket.tenantId }, `${ticket.method}+mfa`, client);
}

async function openSession(
  services: Services,
  user: { id: string; tenantId: string },
  method: SignInMethod | SessionMethod,
  client: SignInClient,
): Promise<IssuedSession> {
  const { prisma } = services.db;
  // Between the steps of a sign-in the user may have been removed.
  const account = await prisma.user.findFirst({
    where: { id: user.id, deactivatedAt: null },
    select: { id: true, email: true, role: true },
  });
  if (!account) throw new AppError("AUTH_INVALID", "Wrong e-mail or password");
  const token = `${tokenPrefix}${randomBytes(32).toString("base64url")}`;
  const expiresAt = new Date(Date.now() + services.config.SESSION_TTL_HOURS * 3600_000);
  // Each login clears the user's dead sessions, so the table holds only the ones that can still be used.
  await prisma.userSession.deleteMany({
    where: { userId: user.id, OR: [{ expiresAt: { lt: new Date() } }, { revokedAt: { not: null } }] },
  });
  const session = await prisma.userSession.create({
    data: {
      id: newId("ses"),
      tenantId: user.tenantId,
      userId: user.id,
      tokenHash: hashToken(token),
      expiresAt,
      method,
      ipAddress: client.clientIp || null,
      userAgent: client.userAgent.slice(0, userAgentMaxLength) || null,
      lastUsedAt: new Date(),
    },
  });
  await loginSucceeded(services, {
    tenantId: user.tenantId,
    user: account,
    sessionId: session.id,
    method: session.method as SessionMethod,
    client,
  });
  return { token, expiresAt, userId: user.id };
}

/**
 * The user behind a session token, with the role they have now: a demotion, a removal or a revoked session applies
 * at the next request, on every instance (sessions are read from the database on each request, never cached).
 */
export async function principalForSession(services: Services, token: string): Promise<Principal | null> {
  const session = await services.db.prisma.userSession.findUnique({
    where: { tokenHash: hashToken(token) },
    include: {
      user: { select: { role: true, email: true, deactivatedAt: true, mfaEnabledAt: true } },
      tenant: { select: { settings: true } },
    },
  });
  if (!session || session.revokedAt || session.expiresAt.getTime() <= Date.now()) return null;
  if (session.user.deactivatedAt || !isRole(session.user.role)) return null;
  if (!session.lastUsedAt || Date.now() - session.lastUsedAt.getTime() > lastUsedPrecisionMs) {
    void services.db.prisma.userSession
      .update({ where: { id: session.id }, data: { lastUsedAt: new Date() } })
      .catch((err) => services.logger.warn({ err }, "could not record session use"));
  }
  return {
    kind: "user",
    id: session.userId,
    sessionId: session.id,
    tenantId: session.tenantId,
    role: session.user.role,
    label: session.user.email,
    rateLimit: effectiveRateLimit(session.tenant.settings, services.config),
    mfaEnrolmentRequired: requiresMfa(session.tenant.settings) && !session.user.mfaEnabledAt,
  };
}
