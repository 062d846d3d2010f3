import { newId } from "../db/ids.js";
import { scopeToTenant } from "../db/tenant-scope.js";
import { assignWaiting } from "../escalations/assign.js";
import { publishInbox } from "../escalations/inbox.js";
import type { EscalationPriority, EscalationReason } from "../escalations/model.js";
import { openEscalation } from "../escalations/open.js";
import { escalationData } from "../events/payloads.js";
import { announceReply, type ReplyToStore, storeReply } from "../pipeline/deliver.js";
import type { Services } from "../services.js";
import { hoursOf, openingState, outOfHoursNotice } from "./business-hours.js";

export const handoffNotice = "Thank you — I'm passing you to a member of our team, who will reply here as soon as possible.";

export interface EscalationRequest {
  /** "ai" (the default) for the router, else the user or API key that asked. */
  actor?: string;
  intent?: string | null;
  priority?: EscalationPriority;
  teamId?: string | null;
  note?: string | null;
  /** The customer message the handoff notice answers (AlreadyAnswered when it has a reply). */
  replyTo?: string;
}

// What a customer's own words ask for: outside business hours it is queued while the AI keeps answering. A model
// server that fails, or an agent's escalation, goes to the humans whatever the time.
const queuedOutOfHours: ReadonlySet<EscalationReason> = new Set(["customer_request", "urgent_intent", "low_confidence"]);

/** Outside the tenant's business hours: when a person is expected, and what the customer is told. */
async function awayNow(services: Services, tenantId: string, reason: EscalationReason, actor: string) {
  if (actor !== "ai" || !queuedOutOfHours.has(reason)) return null;
  const tenant = await services.db.prisma.tenant.findUniqueOrThrow({ where: { id: tenantId }, select: { settings: true } });
  const hours = hoursOf(tenant.settings);
  const now = new Date();
  const state = hours ? openingState(hours, now) : null;
  if (!hours || !state || state.open) return null;
  return { expectedAt: state.reopensAt, notice: outOfHoursNotice(now, state, hours.timeZone) };
}

/**
 * Hands a conversation to the humans: an escalation (status `escalated`, with the reason in its
 * timeline), the customer told that a person will follow, the agents' inboxes told, and an online
 * agent given it when one has room. Outside the tenant's business hours a customer's request is queued
 * instead (`queued`): the conversation stays `open` and the customer is told when a person is expected.
 * Returns the notice's message id.
 */
export async function escalateConversation(
  services: Services,
  conversation: { id: string; tenantId: string; status: string; channel: string },
  reason: EscalationReason,
  request: EscalationRequest = {},
): Promise<{ messageId: string; text: string; escalationId: string; queued: boolean }> {
  const db = scopeToTenant(services.db.prisma, conversation.tenantId);
  const actor = request.actor ?? "ai";
  const away = await awayNow(services, conversation.tenantId, reason, actor);
  const text = away?.notice ?? handoffNotice;
  const notice: ReplyToStore = {
    id: newId("msg"),
    tenantId: conversation.tenantId,
    conversationId: conversation.id,
    channel: conversation.channel,
    role: "assistant",
    content: text,
    metadata: {
      intent: "handoff",
      agentType: "handoff",
      escalation: reason,
      ...(away ? { outOfHours: true, expectedAt: away.expectedAt?.toISOString() ?? null } : {}),
    },
    replyTo: request.replyTo,
  };
  // One transaction: a crash between the two would leave the customer escalated but never told.
  const escalation = await db.$transaction(async (tx) => {
    const opened = await openEscalation(tx, { ...request, conversation, reason, actor, away });
    await services.events.record(
      tx,
      conversation.tenantId,
      "conversation.escalated",
      escalationData(conversation.id, opened, actor),
    );
    await storeReply(services, tx, notice);
    return opened;
  });
  announceReply(services, notice);
  publishInbox(services, conversation.tenantId, {
    type: "escalated",
    conversationId: conversation.id,
    escalationId: escalation.id,
  });
  await assignWaiting(services, conversation.tenantId);
  return { messageId: notice.id, text, escalationId: escalation.id, queued: Boolean(away) };
}
