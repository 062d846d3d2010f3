import { sessionChannels } from "../channels/names.js";
import { newId } from "../db/ids.js";
import { announceReply, type ReplyToStore, storeReply } from "../pipeline/deliver.js";
import type { Services } from "../services.js";

/**
 * What a customer is told when they write while their conversation waits for a person: where the answer will
 * come from. A USSD session or a call is over before an agent can answer in it (README, Hand-off).
 */
export function waitingNotice(channel: string): string {
  return sessionChannels.has(channel)
    ? "Your message is with our team; an agent will contact you soon."
    : "Your message is with our team; an agent will answer here.";
}

/** How the notice is told apart from the assistant's other messages (metadata.notice). */
const noticeKind = "waiting";

/** The notice as the Chat reply's metadata shows it. */
export const waitingNoticeMetadata = { intent: "handoff", confidence: 1, agentType: "human", tokensUsed: 0, sources: [] };

interface Waiting {
  conversation: { id: string; tenantId: string; channel: string };
  customerMessageId: string;
}

/**
 * The acknowledgement of a customer message written while a human has the conversation (escalated or
 * assigned): the notice, stored as the assistant's reply to it and delivered on the customer's channel, once
 * per wait. A wait starts when the conversation was last handed to the humans and ends with an agent's
 * first message; a later message in the same wait is acknowledged by the Chat reply's `handledBy` alone.
 * Returns the notice given, or null. The conversation's row is locked meanwhile, so that two messages
 * arriving together get one notice between them.
 */
export async function acknowledgeWaiting(
  services: Services,
  { conversation, customerMessageId }: Waiting,
): Promise<{ id: string; text: string } | null> {
  const notice: ReplyToStore = {
    id: newId("msg"),
    tenantId: conversation.tenantId,
    conversationId: conversation.id,
    channel: conversation.channel,
    role: "assistant",
    content: waitingNotice(conversation.channel),
    metadata: { ...waitingNoticeMetadata, notice: noticeKind },
    replyTo: customerMessageId,
  };
  const given = await services.db.prisma.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM conversations WHERE id = ${conversation.id} FOR UPDATE`;
    const [told] = await tx.$queryRaw<Array<{ id: string }>>`
      SELECT m.id FROM messages m
       WHERE m.conversation_id = ${conversation.id}
         AND m.created_at >= COALESCE(
               (SELECT max(e.created_at) FROM conversation_events e
                 WHERE e.conversation_id = ${conversation.id} AND e.type = 'status'
                   AND e.to_status IN ('escalated', 'assigned')
                   AND (e.from_status IS NULL OR e.from_status NOT IN ('escalated', 'assigned'))),
               '-infinity'::timestamptz)
         AND (m.role = 'agent' OR (m.role = 'assistant' AND m.metadata->>'notice' = ${noticeKind}))
       LIMIT 1`;
    if (told) return false;
    await storeReply(services, tx, notice);
    return true;
  });
  if (!given) return null;
  announceReply(services, notice);
  return { id: notice.id, text: notice.content };
}
