import { newId } from "../db/ids.js";
import { deliverReply } from "../pipeline/deliver.js";
import type { Services } from "../services.js";
import { transitionConversation } from "./status.js";

export type EscalationReason = "customer_request" | "urgent_intent" | "low_confidence" | "engine_failure";

export const handoffNotice = "Thank you — I'm passing you to a member of our team, who will reply here as soon as possible.";

/**
 * Hands a conversation to the humans: status `escalated` with the reason in its timeline, and the
 * customer told that a person will follow. Returns the notice's message id.
 */
export async function escalateConversation(
  services: Services,
  conversation: { id: string; tenantId: string; status: string; channel: string },
  reason: EscalationReason,
): Promise<{ messageId: string; text: string }> {
  await services.db.prisma.$transaction(async (tx) => {
    await transitionConversation(tx, conversation, "escalated", { actor: "ai", reason });
    await tx.conversation.update({
      where: { id: conversation.id },
      data: { metadata: { escalation: { reason, at: new Date().toISOString() }, lowConfidenceStreak: 0 } },
    });
  });
  const messageId = newId("msg");
  await deliverReply(services, {
    id: messageId,
    tenantId: conversation.tenantId,
    conversationId: conversation.id,
    channel: conversation.channel,
    role: "assistant",
    content: handoffNotice,
    metadata: { intent: "handoff", agentType: "handoff", escalation: reason },
  });
  services.realtime.pubsub.publish("inbox:escalation", conversation.tenantId, { conversationId: conversation.id, reason });
  return { messageId, text: handoffNotice };
}
