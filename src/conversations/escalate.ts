import { newId } from "../db/ids.js";
import { scopeToTenant } from "../db/tenant-scope.js";
import { assignWaiting } from "../escalations/assign.js";
import { publishInbox } from "../escalations/inbox.js";
import type { EscalationPriority, EscalationReason } from "../escalations/model.js";
import { openEscalation } from "../escalations/open.js";
import { escalationData } from "../events/payloads.js";
import { announceReply, type ReplyToStore, storeReply } from "../pipeline/deliver.js";
import type { Services } from "../services.js";

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

/**
 * Hands a conversation to the humans: an escalation (status `escalated`, with the reason in its
 * timeline), the customer told that a person will follow, the agents' inboxes told, and an online
 * agent given it when one has room. Returns the notice's message id.
 */
export async function escalateConversation(
  services: Services,
  conversation: { id: string; tenantId: string; status: string; channel: string },
  reason: EscalationReason,
  request: EscalationRequest = {},
): Promise<{ messageId: string; text: string; escalationId: string }> {
  const db = scopeToTenant(services.db.prisma, conversation.tenantId);
  const notice: ReplyToStore = {
    id: newId("msg"),
    tenantId: conversation.tenantId,
    conversationId: conversation.id,
    channel: conversation.channel,
    role: "assistant",
    content: handoffNotice,
    metadata: { intent: "handoff", agentType: "handoff", escalation: reason },
    replyTo: request.replyTo,
  };
  const actor = request.actor ?? "ai";
  // One transaction: a crash between the two would leave the customer escalated but never told.
  const escalation = await db.$transaction(async (tx) => {
    const opened = await openEscalation(tx, { ...request, conversation, reason, actor });
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
  return { messageId: notice.id, text: handoffNotice, escalationId: escalation.id };
}
