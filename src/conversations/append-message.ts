import { Prisma } from "../db/generated/prisma/client.js";
import type { Statements } from "../db/statements.js";

export type MessageRow = Prisma.MessageGetPayload<object>;

export type NewMessage = Pick<MessageRow, "id" | "tenantId" | "conversationId" | "role" | "content"> &
  Partial<Pick<MessageRow, "providerMessageId" | "replyTo" | "deliveryStatus" | "deliveryError">> & {
    metadata: Prisma.InputJsonObject;
    /** Keys merged into the conversation's metadata by the statement that stores the message (the others are kept). */
    conversationMetadata?: Prisma.InputJsonObject;
  };

/** The customer message already has its reply (a re-run job, a repeated hop, stored by a concurrent run). */
export class AlreadyAnswered extends Error {
  constructor(readonly customerMessageId: string) {
    super(`Message ${customerMessageId} is already answered`);
  }
}

/** A new message's row as Prisma reads it once stored: the columns the database fills by default, filled alike. */
export function messageRow({ conversationMetadata: _, ...input }: NewMessage): MessageRow {
  return {
    providerMessageId: null,
    replyTo: null,
    deliveryStatus: null,
    deliveryError: null,
    deliveryAttempts: 0,
    createdAt: new Date(),
    ...input,
    metadata: input.metadata as Prisma.JsonObject,
  };
}

/**
 * Stores a message and counts it in its conversation (which it brings up to date) in one statement: one round trip
 * where Prisma's create and update took two, on a path every message takes. Returns the row as Prisma reads it.
 * A customer message gets one reply at most: a reply to one that has its reply is not stored (AlreadyAnswered). The
 * unique index on `reply_to` decides, so of two runs storing a reply at once the second waits for the first's
 * transaction and stores nothing once it commits, with no lock taken beforehand.
 */
export async function appendMessage(db: Statements, input: NewMessage): Promise<MessageRow> {
  const row = messageRow(input);
  const merged = input.conversationMetadata
    ? Prisma.sql`, metadata = metadata || ${JSON.stringify(input.conversationMetadata)}::jsonb`
    : Prisma.empty;
  const stored = await db.$executeRaw`
    WITH stored AS (
      INSERT INTO messages (id, tenant_id, conversation_id, role, content, metadata, provider_message_id, reply_to,
                            delivery_status, delivery_error, created_at)
      VALUES (${row.id}, ${row.tenantId}, ${row.conversationId}, ${row.role}, ${row.content},
              ${JSON.stringify(row.metadata)}::jsonb, ${row.providerMessageId}, ${row.replyTo}, ${row.deliveryStatus},
              ${row.deliveryError}, ${row.createdAt})
      ON CONFLICT (reply_to) DO NOTHING
      RETURNING conversation_id)
    UPDATE conversations SET message_count = message_count + 1, updated_at = ${row.createdAt}${merged}
     WHERE id = (SELECT conversation_id FROM stored)`;
  if (stored === 0 && row.replyTo) throw new AlreadyAnswered(row.replyTo);
  return row;
}
