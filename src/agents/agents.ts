import type { Principal } from "../auth/principal.js";
import type { Role } from "../auth/roles.js";
import { transitionConversation } from "../conversations/status.js";
import { lockTenantFor } from "../db/advisory-lock.js";
import { newId } from "../db/ids.js";
import type { TenantDb, TenantTx } from "../db/tenant-scope.js";
import { AppError, notFound } from "../errors.js";
import { assignWaiting } from "../escalations/assign.js";
import { publishInbox } from "../escalations/inbox.js";
import type { Services } from "../services.js";
import { assertMayChangeAgent } from "./access.js";
import { hashPassword, verifyPassword } from "./passwords.js";

export const availabilities = ["online", "away", "offline"] as const;
export type Availability = (typeof availabilities)[number];

export interface AgentFields {
  name?: string;
  email?: string;
  role?: Role;
  password?: string;
  availability?: Availability;
  maxConcurrent?: number;
  teamIds?: string[];
}

export interface AgentChanges extends AgentFields {
  /** Needed when changing one's own password. */
  currentPassword?: string;
  /** false removes the agent (they can no longer log in; their conversations go back to the queue); true restores them. */
  active?: boolean;
}

async function emailFree(tx: TenantTx, email: string, except?: string): Promise<void> {
  const taken = await tx.user.findFirst({ where: { email, id: { not: except } }, select: { id: true } });
  if (taken) throw new AppError("VALIDATION", "An agent with this e-mail exists", [{ path: "email", message: "taken" }]);
}

export async function createAgent(
  services: Services,
  db: TenantDb,
  principal: Principal,
  input: AgentFields & { name: string; email: string },
): Promise<string> {
  assertMayChangeAgent(principal, null, { role: input.role });
  const id = newId("usr");
  const passwordHash = input.password ? await hashPassword(input.password) : null;
  await db.$transaction(async (tx) => {
    await emailFree(tx, input.email);
    await tx.user.create({
      data: {
        id,
        tenantId: principal.tenantId,
        name: input.name,
        email: input.email,
        role: input.role ?? "agent",
        passwordHash,
        availability: input.availability ?? "offline",
        maxConcurrent: input.maxConcurrent ?? 5,
      },
    });
    for (const teamId of input.teamIds ?? []) await joinTeam(tx, principal.tenantId, teamId, id);
  });
  if (input.availability === "online") await assignWaiting(services, principal.tenantId);
  return id;
}

async function joinTeam(tx: TenantTx, tenantId: string, teamId: string, userId: string): Promise<void> {
  if (!(await tx.team.findUnique({ where: { id: teamId }, select: { id: true } }))) throw notFound("Team");
  await tx.teamMember.create({ data: { teamId, userId, tenantId } });
}

/** The last active owner of a tenant stays an owner: without one, nobody could manage its keys. */
async function keepAnOwner(tx: TenantTx, tenantId: string, target: { id: string; role: string }, changes: AgentChanges) {
  const losesOwner = target.role === "owner" && ((changes.role && changes.role !== "owner") || changes.active === false);
  if (!losesOwner) return;
  await lockTenantFor(tx, "owners", tenantId);
  const others = await tx.user.count({ where: { role: "owner", deactivatedAt: null, id: { not: target.id } } });
  if (!others) {
    throw new AppError("VALIDATION", "The last owner cannot be removed or demoted: make another agent an owner first", [
      { path: changes.active === false ? "active" : "role", message: "last owner" },
    ]);
  }
}

/** A removed agent's conversations go back to the queue rather than wait for someone who is gone. */
async function releaseConversations(tx: TenantTx, actor: string, userId: string, reason: string) {
  const held = await tx.escalation.findMany({
    where: { assigneeId: userId, status: "assigned" },
    include: { conversation: { select: { id: true, tenantId: true, status: true } } },
  });
  for (const escalation of held) {
    await tx.escalation.update({ where: { id: escalation.id }, data: { status: "open", assigneeId: null, assignedAt: null } });
    await transitionConversation(tx, escalation.conversation, "escalated", { actor, reason });
  }
  return held.map((e) => ({ escalationId: e.id, conversationId: e.conversationId }));
}

async function passwordHashFor(target: { id: string; passwordHash: string | null }, principal: Principal, changes: AgentChanges) {
  if (!changes.password) return undefined;
  const self = principal.kind === "user" && principal.id === target.id;
  if (self && !(await verifyPassword(target.passwordHash, changes.currentPassword ?? ""))) {
    throw new AppError("VALIDATION", "The current password is wrong", [{ path: "currentPassword", message: "wrong" }]);
  }
  return hashPassword(changes.password);
}

export async function updateAgent(
  services: Services,
  db: TenantDb,
  principal: Principal,
  id: string,
  changes: AgentChanges,
): Promise<void> {
  const target = await db.user.findUnique({ where: { id } });
  if (!target) throw notFound("Agent");
  assertMayChangeAgent(principal, target, { ...changes });
  const passwordHash = await passwordHashFor(target, principal, changes);
  const released = await db.$transaction(async (tx) => {
    await keepAnOwner(tx, principal.tenantId, target, changes);
    if (changes.email) await emailFree(tx, changes.email, id);
    const removing = changes.active === false && !target.deactivatedAt;
    await tx.user.update({
      where: { id },
      data: {
        name: changes.name,
        email: changes.email,
        role: changes.role,
        passwordHash,
        maxConcurrent: changes.maxConcurrent,
        availability: removing ? "offline" : changes.availability,
        deactivatedAt: changes.active === undefined ? undefined : changes.active ? null : (target.deactivatedAt ?? new Date()),
      },
    });
    if (changes.teamIds) {
      await tx.teamMember.deleteMany({ where: { userId: id } });
      for (const teamId of new Set(changes.teamIds)) await joinTeam(tx, principal.tenantId, teamId, id);
    }
    if (removing) {
      await tx.userSession.updateMany({ where: { userId: id, revokedAt: null }, data: { revokedAt: new Date() } });
    }
    // A viewer cannot answer customers: what a demoted agent had goes to someone who can.
    if (!removing && changes.role !== "viewer") return [];
    await lockTenantFor(tx, "assignment", principal.tenantId);
    return releaseConversations(tx, principal.id, id, removing ? "the agent was removed" : "the agent became a viewer");
  });
  for (const escalation of released) publishInbox(services, principal.tenantId, { type: "unassigned", ...escalation });
  await assignWaiting(services, principal.tenantId);
}
