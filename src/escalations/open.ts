import { transitionConversation } from "../conversations/status.js";
import type { Escalation } from "../db/generated/prisma/client.js";
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
  /**
   * Asked outside the tenant's business hours: the escalation waits in the queue for when a person is expected
   * (null: not within a year) and the conversation stays `open`, the AI answering meanwhile.
   */
  away?: { expectedAt: Date | null } | null;
}

/**
 * Hands a conversation to the humans within the caller's transaction: its status moves to `escalated`
 * (recorded in its timeline) and an escalation waits for an agent. A conversation has at most one
 * escalation being worked at a time.
 */
export async function openEscalation(tx: TenantTx, input: EscalationToOpen) {
  const { conversation } = input;
  const active = await tx.escalation.findFirst({ where: { conversationId: conversation.id, status: { not: "resolved" } } });
  if (active?.outOfHours && conversation.status === "open") return askedAgain(tx, input, active);
  if (active) throw new AppError("VALIDATION", `The conversation is already escalated (${active.id})`);
  if (input.away) await recordQueued(tx, input, input.away.expectedAt);
  else await transitionConversation(tx, conversation, "escalated", { actor: input.actor, reason: input.reason });
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
      outOfHours: Boolean(input.away),
      expectedAt: input.away?.expectedAt ?? null,
    },
  });
  await markEscalated(tx, conversation.id, { escalation: { id: escalation.id, reason: input.reason, at: escalation.createdAt } });
  return escalation;
}

/** Merged into what channels keep in the conversation's metadata (a USSD session's screens), never written over it. */
async function markEscalated(tx: TenantTx, conversationId: string, patch: Record<string, unknown> = {}) {
  const merged = JSON.stringify({ ...patch, lowConfidenceStreak: 0 });
  await tx.$executeRaw`UPDATE conversations SET metadata = metadata || ${merged}::jsonb WHERE id = ${conversationId}`;
}

/** The timeline's record of a request queued out of hours: the status stays `open`. */
async function recordQueued(tx: TenantTx, input: EscalationToOpen, expectedAt: Date | null) {
  const { conversation } = input;
  await tx.conversationEvent.create({
    data: {
      id: newId("evt"),
      tenantId: conversation.tenantId,
      conversationId: conversation.id,
      type: "queued",
      fromStatus: conversation.status,
      toStatus: conversation.status,
      actor: input.actor,
      reason: `${input.reason} out of business hours; a person is expected ${expectedAt ? `at ${expectedAt.toISOString()}` : "when the team is back"}`,
    },
  });
}

/**
 * A hand-off asked for again while an out-of-hours request waits: still out of hours, it stays queued; with the
 * team back, the conversation goes to the humans as usual (the AI stops answering).
 */
async function askedAgain(tx: TenantTx, input: EscalationToOpen, active: Escalation) {
  if (input.away) await recordQueued(tx, input, input.away.expectedAt);
  else await transitionConversation(tx, input.conversation, "escalated", { actor: input.actor, reason: input.reason });
  await markEscalated(tx, input.conversation.id);
  return active;
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
