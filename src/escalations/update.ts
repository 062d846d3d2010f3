import type { Principal } from "../auth/principal.js";
import { transitionConversation } from "../conversations/status.js";
import { lockTenantFor } from "../db/advisory-lock.js";
import type { TenantDb, TenantTx } from "../db/tenant-scope.js";
import { AppError, notFound } from "../errors.js";
import { escalationData } from "../events/payloads.js";
import { askSatisfaction } from "../feedback/survey.js";
import type { Services } from "../services.js";
import { assertMayAssignTo, assertMayWork } from "./access.js";
import { assignEscalation, assignWaiting } from "./assign.js";
import { type InboxEventType, publishInbox } from "./inbox.js";
import { type EscalationPriority, type EscalationStatus, workingRoles } from "./model.js";

export interface EscalationChanges {
  status?: EscalationStatus;
  /** An agent's id, or null to give the escalation back to the queue. */
  assigneeId?: string | null;
  priority?: EscalationPriority;
  teamId?: string | null;
  note?: string;
}

type Loaded = NonNullable<Awaited<ReturnType<typeof load>>>;

const load = (tx: TenantTx, id: string) =>
  tx.escalation.findUnique({
    where: { id },
    include: { conversation: { select: { id: true, tenantId: true, status: true, channel: true } } },
  });

/** What the change makes of the escalation's status: an assignee given means assigned, null means open. */
function targetStatus(escalation: Loaded, changes: EscalationChanges): EscalationStatus {
  if (changes.status) return changes.status;
  if (changes.assigneeId === undefined) return escalation.status as EscalationStatus;
  return changes.assigneeId ? "assigned" : "open";
}

async function assigneeFor(tx: TenantTx, principal: Principal, escalation: Loaded, changes: EscalationChanges) {
  const id = changes.assigneeId ?? escalation.assigneeId ?? (principal.kind === "user" ? principal.id : null);
  if (!id) throw new AppError("VALIDATION", "Name the agent to assign", [{ path: "assigneeId", message: "required" }]);
  assertMayAssignTo(principal, id);
  const agent = await tx.user.findUnique({ where: { id }, select: { id: true, name: true, role: true, deactivatedAt: true } });
  if (!agent || agent.deactivatedAt) throw notFound("Agent");
  if (!(workingRoles as readonly string[]).includes(agent.role)) {
    throw new AppError("VALIDATION", "A viewer cannot be given conversations", [{ path: "assigneeId", message: "viewer" }]);
  }
  return agent;
}

/** Applies one change under the assignment lock; returns what the inboxes are told. */
async function apply(
  services: Services,
  tx: TenantTx,
  principal: Principal,
  escalation: Loaded,
  changes: EscalationChanges,
): Promise<InboxEventType> {
  if (escalation.status === "resolved") throw new AppError("VALIDATION", "A resolved escalation is final");
  if (changes.teamId) {
    if (!(await tx.team.findUnique({ where: { id: changes.teamId }, select: { id: true } }))) throw notFound("Team");
  }
  await tx.escalation.update({
    where: { id: escalation.id },
    data: { priority: changes.priority, teamId: changes.teamId, note: changes.note },
  });
  const actor = principal.id;
  const target = targetStatus(escalation, changes);
  const { conversation } = escalation;
  if (target === "resolved") {
    const resolved = await tx.escalation.update({
      where: { id: escalation.id },
      data: { status: "resolved", resolvedAt: new Date() },
    });
    await transitionConversation(tx, conversation, "resolved", { actor, reason: changes.note ?? "resolved by an agent" });
    await services.events.record(
      tx,
      principal.tenantId,
      "conversation.resolved",
      escalationData(conversation.id, resolved, actor),
    );
    return "resolved";
  }
  if (target === "open") {
    if (escalation.status === "open") return "updated";
    await tx.escalation.update({ where: { id: escalation.id }, data: { status: "open", assigneeId: null, assignedAt: null } });
    await transitionConversation(tx, conversation, "escalated", { actor, reason: "given back to the queue" });
    return "unassigned";
  }
  const agent = await assigneeFor(tx, principal, escalation, changes);
  if (agent.id === escalation.assigneeId) return "updated";
  await assignEscalation(services, tx, escalation, agent, { actor, how: "by hand" });
  return "assigned";
}

/**
 * Works an escalation: assign (to oneself, or by an admin to anyone, whatever their availability and
 * limit), give back to the queue, resolve (the conversation goes back to the AI), or change its
 * priority, team or note. Freed room is handed on to waiting escalations at once.
 */
export async function updateEscalation(
  services: Services,
  db: TenantDb,
  principal: Principal,
  id: string,
  changes: EscalationChanges,
): Promise<void> {
  const { event, conversation } = await db.$transaction(async (tx) => {
    await lockTenantFor(tx, "assignment", principal.tenantId);
    const escalation = await load(tx, id);
    if (!escalation) throw notFound("Escalation");
    assertMayWork(principal, escalation);
    return { event: await apply(services, tx, principal, escalation, changes), conversation: escalation.conversation };
  });
  const conversationId = conversation.id;
  publishInbox(services, principal.tenantId, { type: event, conversationId, escalationId: id });
  if (event === "resolved") await askSatisfaction(services, conversation);
  if (event !== "assigned") await assignWaiting(services, principal.tenantId);
}
