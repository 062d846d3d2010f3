import { adapterFor, sendsThroughProvider } from "../channels/registry.js";
import { channelById } from "../channels/store.js";
import { appendMessage } from "../conversations/append-message.js";
import { outboundText } from "../conversations/disclosure.js";
import { listedQuestions } from "../conversations/offer.js";
import type { Prisma } from "../db/generated/prisma/client.js";
import type { Statements } from "../db/statements.js";
import { publishActivity } from "../escalations/inbox.js";
import { messageData } from "../events/payloads.js";
import { type JobRecord, PermanentJobError } from "../jobs/queue.js";
import type { Services } from "../services.js";

export const sendQueue = "deliver.send";

export interface ReplyToStore {
  id: string;
  tenantId: string;
  conversationId: string;
  channel: string;
  role: "assistant" | "agent" | "system";
  content: string;
  metadata: Prisma.InputJsonObject;
  /**
   * Another of the tenant's channels to send through, to the same customer: an agent's reply to a USSD
   * session or a call, which end before a person can answer, goes out as an SMS (README, Hand-off).
   */
  via?: { channelId: string; channel: string };
  /** The customer message this answers: it gets no other reply (AlreadyAnswered). */
  replyTo?: string;
  /** Why the reply cannot be sent at all: it is stored as a failed delivery saying so, and nothing is enqueued. */
  undeliverable?: string;
  /** Keys of the conversation's metadata the reply changes, stored by the reply's own statement. */
  conversationMetadata?: Prisma.InputJsonObject;
}

/** What a reply is stored with: a transaction of the plain or of a tenant-scoped client (their generated types differ). */
export type ReplyTx = Pick<Prisma.TransactionClient, "$queryRaw" | "$executeRaw">;

/** Whether the reply goes out through a provider, by a send job stored with it. */
const sendsLater = (reply: ReplyToStore) => !reply.undeliverable && sendsThroughProvider(reply.via?.channel ?? reply.channel);

/** Stores the reply's message (AlreadyAnswered when the customer message it answers has its reply). */
function appendReply(tx: Statements, reply: ReplyToStore) {
  const sends = sendsLater(reply);
  return appendMessage(tx, {
    id: reply.id,
    tenantId: reply.tenantId,
    conversationId: reply.conversationId,
    role: reply.role,
    content: reply.content,
    metadata: reply.metadata,
    replyTo: reply.replyTo ?? null,
    deliveryStatus: reply.undeliverable ? "failed" : sends ? "pending" : null,
    deliveryError: reply.undeliverable ?? null,
    conversationMetadata: reply.conversationMetadata,
  });
}

/**
 * Stores a reply within the caller's transaction and, on channels that send through a provider, enqueues
 * its delivery (retried by the job queue). A customer message gets one reply: of two runs answering it at
 * once, the second stores nothing (AlreadyAnswered). A reply that leaves with the response (API, widget,
 * USSD, voice) is sent once stored: its event is recorded here.
 */
export async function storeReply(services: Services, tx: ReplyTx, reply: ReplyToStore): Promise<void> {
  await appendReply(tx, reply);
  const event = eventOnStoring(reply);
  if (event) await services.events.record(tx, reply.tenantId, event.type, event.data);
  else {
    await services.jobs.enqueue(
      {
        queue: sendQueue,
        tenantId: reply.tenantId,
        payload: { messageId: reply.id, via: reply.via ?? null },
        dedupeKey: reply.id,
        // A provider down longer than the retries last is a failed delivery, shown as such, never retried forever.
        maxAttempts: services.config.SEND_MAX_ATTEMPTS,
      },
      tx,
    );
  }
}

/** The event of a reply that is final once stored: failed when it cannot be sent, sent when it leaves with the response. */
function eventOnStoring(reply: ReplyToStore): { type: "message.failed" | "message.sent"; data: object } | null {
  if (reply.undeliverable) {
    const delivery = { status: "failed", attempts: 0, error: reply.undeliverable };
    return { type: "message.failed", data: messageData(reply, delivery) };
  }
  return sendsLater(reply) ? null : { type: "message.sent", data: messageData(reply) };
}

/** After the reply's transaction committed: wakes the senders and tells live listeners (agent inbox, widget). */
export function announceReply(services: Services, reply: ReplyToStore): void {
  if (sendsLater(reply)) services.jobs.announce(sendQueue);
  services.realtime.pubsub.publish("conversation:message", reply.conversationId, {
    tenantId: reply.tenantId,
    conversationId: reply.conversationId,
    messageId: reply.id,
    role: reply.role,
  });
  publishActivity(services, reply.tenantId, { conversationId: reply.conversationId, messageId: reply.id });
}

/**
 * Stores a reply with its delivery, then announces it. A reply that is final once stored, to a tenant whose endpoints
 * want no event of it (the usual API and widget answer), is one statement, with no transaction.
 */
export async function deliverReply(services: Services, reply: ReplyToStore): Promise<void> {
  const event = eventOnStoring(reply);
  if (event) {
    await services.events.withEvent(
      services.db.prisma,
      { tenantId: reply.tenantId, type: event.type, data: () => event.data },
      (tx) => appendReply(tx, reply),
      services.db.statements,
    );
  } else await services.db.prisma.$transaction((tx) => storeReply(services, tx, reply));
  announceReply(services, reply);
}

/**
 * The send job: one stored reply out through its channel's provider. Its delivery status follows
 * every attempt (pending with the last error while retrying, then sent or failed), so the messages
 * API shows what the customer got.
 */
export async function sendStoredReply(services: Services, job: JobRecord): Promise<void> {
  const { messageId, via } = job.payload as { messageId: string; via?: ReplyToStore["via"] | null };
  const prisma = services.db.prisma;
  const message = await prisma.message.findUnique({ where: { id: messageId }, include: { conversation: true } });
  if (!message || message.deliveryStatus === "sent") return;
  const { conversation } = message;
  // The delivery's status; once it is final, with its event (sent or failed) in the same transaction. Each change
  // is announced, so that a dashboard shows it as it happens.
  const record = async (data: Prisma.MessageUpdateInput & { deliveryStatus: string; deliveryError: string | null }) => {
    const delivery = { status: data.deliveryStatus, attempts: job.attempts, error: data.deliveryError };
    const type = data.deliveryStatus === "sent" ? "message.sent" : "message.failed";
    if (data.deliveryStatus === "pending") await prisma.message.update({ where: { id: messageId }, data });
    else
      await services.events.withEvent(
        prisma,
        { tenantId: message.tenantId, type, data: () => messageData(message, delivery) },
        (tx) => tx.message.update({ where: { id: messageId }, data }),
      );
    publishActivity(services, conversation.tenantId, { conversationId: conversation.id, messageId });
  };
  const channelId = via?.channelId ?? conversation.channelId;
  const channel = channelId ? await channelById(services, channelId) : null;
  const adapter = adapterFor(via?.channel ?? conversation.channel);
  const outcome = (value: "sent" | "failed" | "retrying") =>
    services.metrics.channelDeliveries.inc({ channel: conversation.channel, outcome: value });
  if (!channel?.enabled || !adapter.send || !conversation.customerId) {
    await record({
      deliveryStatus: "failed",
      deliveryAttempts: job.attempts,
      deliveryError: "The channel is no longer configured",
    });
    outcome("failed");
    return;
  }
  try {
    const sent = await adapter.send(
      { channel, config: services.config, signal: AbortSignal.timeout(30_000) },
      {
        to: conversation.customerId,
        text: adapter.format(await outboundText(services, message), channel.settings),
        choices: listedQuestions(message.metadata),
      },
    );
    await record({
      deliveryStatus: "sent",
      deliveryAttempts: job.attempts,
      deliveryError: null,
      metadata: { ...(message.metadata as Prisma.JsonObject), providerMessageId: sent.providerMessageId ?? null },
    });
    outcome("sent");
  } catch (err) {
    const final = err instanceof PermanentJobError || job.attempts >= job.maxAttempts;
    await record({
      deliveryStatus: final ? "failed" : "pending",
      deliveryAttempts: job.attempts,
      deliveryError: (err as Error).message,
    });
    outcome(final ? "failed" : "retrying");
    throw err;
  }
}
