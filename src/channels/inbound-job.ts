import { AlreadyAnswered } from "../conversations/append-message.js";
import { escalateConversation } from "../conversations/escalate.js";
import { AppError } from "../errors.js";
import type { JobRecord } from "../jobs/queue.js";
import type { InboundMessage } from "../pipeline/inbound.js";
import { handleInbound, type PipelineResult } from "../pipeline/index.js";
import type { Services } from "../services.js";
import type { ChannelEvent, ConfiguredChannel } from "./adapter.js";
import { channelById } from "./store.js";

export const inboundQueue = "channel.inbound";

export interface InboundJob {
  channelId: string;
  providerMessageId: string;
  event: ChannelEvent;
}

const maxText = 4_000;

/**
 * Takes one stored webhook event through the pipeline. Retrying the job would not help when the AI
 * fails: the message is stored, a rerun is a redelivery.
 */
export async function processInbound(services: Services, job: JobRecord): Promise<void> {
  const { channelId, providerMessageId, event } = job.payload as InboundJob;
  const channel = await channelById(services, channelId);
  if (!channel?.enabled) {
    services.logger.info({ channelId }, "inbound event for a removed or disabled channel: dropped");
    return;
  }
  await answerEvent(services, channel, event, providerMessageId);
}

/** The pipeline's message for a channel event: what cannot be read goes on as its kind, answered without the AI. */
export function inboundMessage(channel: ConfiguredChannel, event: ChannelEvent, providerMessageId: string): InboundMessage {
  const readable = event.text !== null && event.text.trim() !== "";
  return {
    tenantId: channel.tenantId,
    channel: channel.type,
    channelId: channel.id,
    customer: event.customer,
    text: readable ? event.text!.slice(0, maxText) : `[${event.kind}]`,
    kind: readable ? "text" : event.kind,
    providerMessageId,
    ...(readable && event.choice ? { choice: true } : {}),
  };
}

/**
 * One customer event of a tenant's channel through the pipeline, run by the worker (asynchronous
 * channels) or within the webhook request (USSD, voice). When the model server still fails after the
 * engine's own retries, the customer is not left unanswered: a human takes the conversation (reason
 * `engine_failure`), and the handoff notice is the reply.
 */
export async function answerEvent(
  services: Services,
  channel: ConfiguredChannel,
  event: ChannelEvent,
  providerMessageId: string,
): Promise<PipelineResult> {
  const msg = inboundMessage(channel, event, providerMessageId);
  try {
    return await handleInbound(services, msg);
  } catch (err) {
    if (!(err instanceof AppError && err.code === "EXTERNAL")) throw err;
    const stored = await services.db.prisma.message.findFirst({
      where: { tenantId: channel.tenantId, providerMessageId },
      select: { id: true, conversation: true },
    });
    if (!stored) throw err;
    services.logger.warn({ err, conversationId: stored.conversation.id }, "the AI could not answer: handed to a human");
    const base = { conversationId: stored.conversation.id, customerMessageId: stored.id };
    try {
      const notice = await escalateConversation(services, stored.conversation, "engine_failure", { replyTo: stored.id });
      const metadata = { intent: "handoff", confidence: 1, agentType: "handoff", tokensUsed: 0, sources: [] };
      return { ...base, reply: { id: notice.messageId, text: notice.text, metadata }, handledBy: "escalated" };
    } catch (failure) {
      if (failure instanceof AlreadyAnswered) return { ...base, reply: null, handledBy: "duplicate" };
      throw failure;
    }
  }
}
