import type { Prisma } from "../db/generated/prisma/client.js";
import type { Statements } from "../db/statements.js";
import { type MessageRow, messageRow, type NewMessage } from "./append-message.js";

export type ConversationRow = Prisma.ConversationGetPayload<object>;

export type NewConversation = Pick<
  ConversationRow,
  "id" | "tenantId" | "channel" | "channelId" | "customerId" | "customerPhone" | "customerName"
>;

/** A message before it is placed in a conversation: the tenant and conversation come from where it is stored. */
export type UnplacedMessage = Omit<NewMessage, "tenantId" | "conversationId">;

/**
 * A customer's new conversation and its first message in one statement, where creating the conversation and then
 * appending to it took two, on the path of every first message. Returns the conversation as it was before the message
 * (as a conversation found for a later message is: `messageCount` counts the messages before it) and the message.
 * Returns null, having stored nothing, when the customer's live conversation exists already: another first message
 * of theirs created it meanwhile (the `conversations_one_live_per_customer` index decides).
 */
export async function startConversation(
  db: Statements,
  conversation: NewConversation,
  first: UnplacedMessage,
): Promise<{ conversation: ConversationRow; message: MessageRow } | null> {
  const message = messageRow({ ...first, tenantId: conversation.tenantId, conversationId: conversation.id });
  const at = message.createdAt;
  const stored = await db.$executeRaw`
    WITH conversation AS (
      INSERT INTO conversations (id, tenant_id, channel, channel_id, customer_id, customer_phone, customer_name,
                                 message_count, created_at, updated_at)
      VALUES (${conversation.id}, ${conversation.tenantId}, ${conversation.channel}, ${conversation.channelId},
              ${conversation.customerId}, ${conversation.customerPhone}, ${conversation.customerName}, 1, ${at}, ${at})
      ON CONFLICT DO NOTHING
      RETURNING id)
    INSERT INTO messages (id, tenant_id, conversation_id, role, content, metadata, provider_message_id, reply_to,
                          delivery_status, delivery_error, created_at)
    SELECT ${message.id}, ${message.tenantId}, conversation.id, ${message.role}, ${message.content},
           ${JSON.stringify(message.metadata)}::jsonb, ${message.providerMessageId}, ${message.replyTo},
           ${message.deliveryStatus}, ${message.deliveryError}, ${at}
      FROM conversation`;
  if (stored === 0) return null;
  return {
    conversation: {
      ...conversation,
      status: "open",
      messageCount: 0,
      metadata: {},
      disclosedAt: null,
      createdAt: at,
      updatedAt: at,
    },
    message,
  };
}
