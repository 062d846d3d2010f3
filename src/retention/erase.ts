import { inboundQueue } from "../channels/inbound-job.js";
import type { TenantDb } from "../db/tenant-scope.js";
import { activeHolds, covers } from "./holds.js";
import { type CustomerIdentity, conversationsOf } from "./identity.js";

export interface ErasedCounts {
  conversations: number;
  messages: number;
  feedback: number;
  surveys: number;
  escalations: number;
  /** Status changes, assignments and agents' notes of the conversations. */
  timelineEvents: number;
  /** Event notifications that carried the conversations or their messages (with their delivery logs). */
  webhookEvents: number;
  /** The service's finished records of the customer's inbound messages (the provider's payloads). */
  jobs: number;
}

export interface HeldBack {
  conversationId: string;
  holdId: string;
  reason: string;
}

export interface Erasure {
  erased: ErasedCounts;
  heldBack: HeldBack[];
}

// Conversations erased per transaction: a customer with a long history is erased in short transactions.
const batchSize = 50;

const none = (): ErasedCounts => ({
  conversations: 0,
  messages: 0,
  feedback: 0,
  surveys: 0,
  escalations: 0,
  timelineEvents: 0,
  webhookEvents: 0,
  jobs: 0,
});

type Candidate = { id: string; channel: string; customerId: string | null; customerPhone: string | null };

/**
 * Erases a batch of conversations, but first locks them and reads the holds again: a hold placed since the
 * request began (placing one locks what it covers) keeps its conversations, which join `heldBack`.
 */
async function eraseConversations(
  db: TenantDb,
  tenantId: string,
  batch: Candidate[],
  erased: ErasedCounts,
  heldBack: HeldBack[],
): Promise<void> {
  await db.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM conversations WHERE tenant_id = ${tenantId} AND id = ANY(${batch.map((c) => c.id)}::text[]) FOR UPDATE`;
    const holds = await activeHolds(tx);
    const ids: string[] = [];
    for (const conversation of batch) {
      const hold = holds.find((h) => covers(h, conversation));
      if (hold) heldBack.push({ conversationId: conversation.id, holdId: hold.id, reason: hold.reason });
      else ids.push(conversation.id);
    }
    const of = { conversationId: { in: ids } };
    erased.messages += await tx.message.count({ where: of });
    erased.feedback += await tx.messageFeedback.count({ where: of });
    erased.surveys += await tx.satisfactionSurvey.count({ where: of });
    erased.escalations += await tx.escalation.count({ where: of });
    erased.timelineEvents += await tx.conversationEvent.count({ where: of });
    erased.webhookEvents += await tx.$executeRaw`
      DELETE FROM webhook_events
       WHERE tenant_id = ${tenantId}
         AND (payload #>> '{data,conversation,id}' = ANY(${ids}::text[])
              OR payload #>> '{data,message,conversation_id}' = ANY(${ids}::text[])
              OR payload #>> '{data,conversation_id}' = ANY(${ids}::text[]))`;
    // The rest of the transcript goes with the conversation (foreign keys cascade).
    erased.conversations += (await tx.conversation.deleteMany({ where: { id: { in: ids } } })).count;
  });
}

/**
 * The customer's inbound messages as received (the jobs that processed them), once finished; those of a held
 * conversation are kept with it. Pending ones are left to run: they are what the customer is sending right now.
 */
async function eraseInboundRecords(db: TenantDb, tenantId: string, identity: CustomerIdentity, held: string[]) {
  const phone = identity.phone ?? null;
  const channel = identity.channel ?? null;
  const customerId = identity.customerId ?? null;
  return db.$executeRaw`
    DELETE FROM jobs
     WHERE tenant_id = ${tenantId} AND queue = ${inboundQueue} AND status IN ('completed', 'dead')
       AND (payload #>> '{event,customer,phone}' = ${phone}
            OR (payload #>> '{event,type}' = ${channel} AND payload #>> '{event,customer,id}' = ${customerId}))
       AND NOT EXISTS (SELECT 1 FROM messages m
                        WHERE m.conversation_id = ANY(${held}::text[]) AND m.provider_message_id = jobs.payload ->> 'providerMessageId')`;
}

/**
 * Erases one customer's data on every channel (a data-subject request): their conversations with every message,
 * rating, escalation and note, the notifications that carried them, and the raw inbound records. What a legal hold
 * covers is kept, and said so. Running it again erases what arrived since, and otherwise nothing.
 */
export async function eraseCustomer(db: TenantDb, tenantId: string, identity: CustomerIdentity): Promise<Erasure> {
  const [holds, conversations] = await Promise.all([
    activeHolds(db),
    db.conversation.findMany({
      where: conversationsOf(identity),
      select: { id: true, channel: true, customerId: true, customerPhone: true },
      orderBy: { createdAt: "asc" },
    }),
  ]);
  const heldBack: HeldBack[] = [];
  const doomed: Candidate[] = [];
  for (const conversation of conversations) {
    const hold = holds.find((h) => covers(h, conversation));
    if (hold) heldBack.push({ conversationId: conversation.id, holdId: hold.id, reason: hold.reason });
    else doomed.push(conversation);
  }
  const erased = none();
  for (let i = 0; i < doomed.length; i += batchSize) {
    await eraseConversations(db, tenantId, doomed.slice(i, i + batchSize), erased, heldBack);
  }
  erased.jobs = await eraseInboundRecords(
    db,
    tenantId,
    identity,
    heldBack.map((h) => h.conversationId),
  );
  return { erased, heldBack };
}
