import { transitionConversation } from "../conversations/status.js";
import { lockTenantFor } from "../db/advisory-lock.js";
import { newId } from "../db/ids.js";
import { scopeToTenant, type TenantTx } from "../db/tenant-scope.js";
import { escalationData } from "../events/payloads.js";
import type { Services } from "../services.js";
import { publishInbox } from "./inbox.js";
import { priorityRank, workingRoles } from "./model.js";

/** An agent who could take an escalation now, with the conversations they already have. */
export interface Candidate {
  id: string;
  name: string;
  maxConcurrent: number;
  lastAssignedAt: Date | null;
  teamIds: string[];
  open: number;
}

/**
 * The assignment rule: among the online agents of the escalation's team (any team when it has none) who are
 * under their limit, the one with the fewest open conversations; on a tie, the one who waited longest
 * for one, then by id so the choice is the same on every instance.
 */
export function pickAgent(candidates: Candidate[], teamId: string | null): Candidate | undefined {
  const waited = (c: Candidate) => c.lastAssignedAt?.getTime() ?? 0;
  return candidates
    .filter((c) => c.open < c.maxConcurrent && (!teamId || c.teamIds.includes(teamId)))
    .sort((a, b) => a.open - b.open || waited(a) - waited(b) || a.id.localeCompare(b.id))[0];
}

async function onlineCandidates(tx: TenantTx): Promise<Candidate[]> {
  const users = await tx.user.findMany({
    where: { availability: "online", deactivatedAt: null, role: { in: [...workingRoles] } },
    select: { id: true, name: true, maxConcurrent: true, lastAssignedAt: true, teams: { select: { teamId: true } } },
  });
  if (!users.length) return [];
  const loads = await tx.escalation.groupBy({
    by: ["assigneeId"],
    where: { status: "assigned", assigneeId: { in: users.map((u) => u.id) } },
    _count: { _all: true },
  });
  const open = new Map(loads.map((l) => [l.assigneeId, l._count._all]));
  return users.map((u) => ({ ...u, teamIds: u.teams.map((t) => t.teamId), open: open.get(u.id) ?? 0 }));
}

type Assignable = { id: string; conversation: { id: string; tenantId: string; status: string } };

/**
 * Gives an escalation to an agent within the caller's transaction; the conversation becomes `assigned`,
 * and a reassignment, which changes no status, is recorded in the timeline as an assignment.
 */
export async function assignEscalation(
  services: Services,
  tx: TenantTx,
  escalation: Assignable,
  agent: { id: string; name: string },
  change: { actor: string; how: string },
): Promise<void> {
  const now = new Date();
  const assigned = await tx.escalation.update({
    where: { id: escalation.id },
    data: { status: "assigned", assigneeId: agent.id, assignedAt: now },
  });
  await tx.user.update({ where: { id: agent.id }, data: { lastAssignedAt: now } });
  const { conversation } = escalation;
  const reason = `assigned to ${agent.name} (${agent.id}) ${change.how}`;
  if (conversation.status === "assigned") {
    await tx.conversationEvent.create({
      data: {
        id: newId("evt"),
        tenantId: conversation.tenantId,
        conversationId: conversation.id,
        type: "assignment",
        fromStatus: "assigned",
        toStatus: "assigned",
        actor: change.actor,
        reason,
      },
    });
  } else {
    await transitionConversation(tx, conversation, "assigned", { actor: change.actor, reason });
  }
  await services.events.record(tx, conversation.tenantId, "conversation.assigned", {
    ...escalationData(conversation.id, assigned, change.actor),
    assignee: { id: agent.id, name: agent.name },
  });
}

async function assignNext(services: Services, tx: TenantTx): Promise<{ escalationId: string; conversationId: string } | null> {
  const waiting = await tx.escalation.findMany({
    where: { status: "open" },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: 500,
    select: { id: true, teamId: true, priority: true, conversation: { select: { id: true, tenantId: true, status: true } } },
  });
  if (!waiting.length) return null;
  const candidates = await onlineCandidates(tx);
  if (!candidates.length) return null;
  // A stable sort: within a priority, the longest waiting first.
  waiting.sort((a, b) => priorityRank(b.priority) - priorityRank(a.priority));
  for (const escalation of waiting) {
    const agent = pickAgent(candidates, escalation.teamId);
    if (!agent) continue;
    await assignEscalation(services, tx, escalation, agent, { actor: "system", how: "automatically" });
    return { escalationId: escalation.id, conversationId: escalation.conversation.id };
  }
  return null;
}

/**
 * Hands waiting escalations to online agents by the assignment rule, one at a time under the tenant's
 * assignment lock. Called whenever that can change who gets what: an escalation opens or is given back,
 * an agent comes online or gets more room, a conversation is resolved.
 */
export async function assignWaiting(services: Services, tenantId: string): Promise<void> {
  const db = scopeToTenant(services.db.prisma, tenantId);
  for (;;) {
    const assigned = await db.$transaction(async (tx) => {
      await lockTenantFor(tx, "assignment", tenantId);
      return assignNext(services, tx);
    });
    if (!assigned) return;
    publishInbox(services, tenantId, { type: "assigned", ...assigned });
  }
}
