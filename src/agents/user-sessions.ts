import { type Principal, permits } from "../auth/principal.js";
import type { Prisma } from "../db/generated/prisma/client.js";
import type { TenantDb } from "../db/tenant-scope.js";
import { AppError, notFound } from "../errors.js";
import { assertMayChangeAgent } from "./access.js";

export type SessionRow = Prisma.UserSessionGetPayload<object>;

/** Sessions that still open the door: neither revoked nor expired. */
const live = (): Prisma.UserSessionWhereInput => ({ revokedAt: null, expiresAt: { gt: new Date() } });

/**
 * Whose sessions a request is about: the caller's own (a dashboard user, no agent named or themself), or, for an
 * admin or owner, any agent's of the tenant; changing an owner's takes an owner, as every change of an owner does.
 */
async function sessionOwner(db: TenantDb, principal: Principal, agentId: string | null, changing: boolean): Promise<string> {
  const self = principal.kind === "user" ? principal.id : null;
  if (!agentId || agentId === self) {
    if (!self)
      throw new AppError("VALIDATION", "An API key has no sessions: name the agent", [{ path: "agentId", message: "required" }]);
    return self;
  }
  if (!permits(principal, "configure"))
    throw new AppError("FORBIDDEN", `The ${principal.role} role may only see its own sessions`);
  const target = await db.user.findUnique({ where: { id: agentId }, select: { id: true, role: true } });
  if (!target) throw notFound("Agent");
  if (changing) assertMayChangeAgent(principal, target, { sessions: "revoke" });
  return target.id;
}

/** Live sessions, newest first; `query` is the GraphQL selection (Pothos' include/select). */
export async function listSessions(
  db: TenantDb,
  principal: Principal,
  agentId: string | null,
  query: object = {},
): Promise<SessionRow[]> {
  const userId = await sessionOwner(db, principal, agentId, false);
  return db.userSession.findMany({ ...query, where: { userId, ...live() }, orderBy: [{ createdAt: "desc" }, { id: "desc" }] });
}

/** Revokes one session (the caller's own, or any agent's for an admin): its token stops working at the next request. */
export async function revokeSession(db: TenantDb, principal: Principal, sessionId: string): Promise<void> {
  const session = await db.userSession.findFirst({ where: { id: sessionId, ...live() }, select: { userId: true } });
  if (!session) throw notFound("Session");
  await sessionOwner(db, principal, session.userId, true).catch((error: AppError) => {
    // Another agent's session is as good as absent to a caller who may not see it.
    throw error.code === "FORBIDDEN" && !permits(principal, "configure") ? notFound("Session") : error;
  });
  await db.userSession.updateMany({ where: { id: sessionId, revokedAt: null }, data: { revokedAt: new Date() } });
}

/**
 * Revokes every live session of an agent (or of the caller), except the caller's own current one when it is among
 * them: "log out everywhere else". Answers how many were revoked.
 */
export async function revokeSessions(db: TenantDb, principal: Principal, agentId: string | null): Promise<number> {
  const userId = await sessionOwner(db, principal, agentId, true);
  const { count } = await db.userSession.updateMany({
    where: { userId, ...live(), ...(principal.sessionId ? { id: { not: principal.sessionId } } : {}) },
    data: { revokedAt: new Date() },
  });
  return count;
}
