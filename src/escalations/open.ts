import { transitionConversation } from "../conversations/status.js";
import { newId } from "../db/ids.js";
import type { TenantTx } from "../db/tenant-scope.js";
import { AppError, notFound } from "../errors.js";
import { type EscalationPriority, type EscalationReason, priorityFor } from "./model.js";

export interface EscalationToOpen {
  conversation: { id: string; tenantId: string; status: string };
  reason: EscalationReason;
  priority?: EscalationPriority;
  teamId?: string | null;
  /** The conversation's intent: picks the team whose intents include it when no team is given. */
  intent?: string | null;
  note?: string | null;
  /** "ai" for the router, else the user or API key that asked. */
  actor: string;
}

/**
 * Hands a conversation to the humans within the caller's transaction: its status moves to `escalated`
 * (recorded in its timeline) and an escalation waits for an agent. A conversation has at most one
 * escalation being worked at a time.
 */
export async function openEscalation(tx: TenantTx, input: EscalationToOpen) {
  const { conversation } = input;
  const active = await tx.escalation.findFirst({
    where: { conversationId: conversation.id, status: { not: "resolved" } },
    select: { id: true },
  });
  if (active) throw new AppError("VALIDATION", `The conversation is already escalated (${active.id})`);
  await transitionConversation(tx, conversation, "escalated", { actor: input.actor, reason: input.reason });
  const escalation = await tx.escalation.create({
    data: {
      id: newId("esc"),
      tenantId: conversation.tenantId,
      conversationId: conversation.id,
      reason: input.reason,
      priority: input.priority ?? priorityFor(input.reason),
      teamId: await teamFor(tx, input),
      note: input.note ?? null,
      createdBy: input.actor,
    },
  });
  // Merged into what channels keep there (a USSD session's screens), never written over it.
  const patch = { escalation: { id: escalation.id, reason: input.reason, at: escalation.createdAt }, lowConfidenceStreak: 0 };
  await tx.$executeRaw`UPDATE conversations SET metadata = metadata || ${JSON.stringify(patch)}::jsonb WHERE id = ${conversation.id}`;
  return escalation;
}

async function teamFor(tx: TenantTx, input: EscalationToOpen): Promise<string | null> {
  if (input.teamId) {
    const team = await tx.team.findUnique({ where: { id: input.teamId }, select: { id: true } });
    if (!team) throw notFound("Team");
    return team.id;
  }
  if (!input.intent) return null;
  const team = await tx.team.findFirst({
    where: { intents: { has: input.intent } },
    orderBy: { createdAt: "asc" },
    select: { id: true },
  });
  return team?.id ?? null;
}
