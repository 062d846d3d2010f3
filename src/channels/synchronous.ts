import type { Response } from "express";
import { disclosureKind } from "../conversations/disclosure.js";
import { humanStatuses, transitionConversation } from "../conversations/status.js";
import { waitingNotice } from "../conversations/waiting.js";
import { AppError } from "../errors.js";
import type { RateLimits } from "../http/rate-limit.js";
import type { Services } from "../services.js";
import type { ChannelEvent, ConfiguredChannel, WebhookEndpoint, WebhookRequest } from "./adapter.js";
import { answerEvent } from "./inbound-job.js";
import { providerMessageKey, verifiedEvents } from "./webhook.js";

// What the synchronous channels (USSD, voice) share: the provider's HTTP request waits for the reply,
// so the pipeline runs within it; a repeated hop is answered again from what was stored; and one
// conversation lasts one session or call.

export interface RoutedEvent {
  event: ChannelEvent;
  channel: ConfiguredChannel;
}

/** A provider endpoint whose HTTP answer is the reply (a USSD screen, TwiML). */
export interface SynchronousEndpoint extends WebhookEndpoint {
  contentType: string;
  /** The answer for a request no configured channel takes: the provider is told to stop, nothing is stored. */
  unrouted: string;
  answer(services: Services, routed: RoutedEvent, req: WebhookRequest): Promise<string>;
}

/** Verifies and routes the request as every webhook is, then answers it within the request. */
export async function answerSynchronously(
  services: Services,
  limits: RateLimits,
  endpoint: SynchronousEndpoint,
  req: WebhookRequest,
  res: Response,
): Promise<string> {
  const [routed] = await verifiedEvents(services, limits, endpoint, req, res);
  return routed ? endpoint.answer(services, routed, req) : endpoint.unrouted;
}

const lostNotice = "Sorry, I could not answer that just now. Please try again.";

export interface SyncReply {
  conversationId: string;
  text: string;
  /** The AI disclosure the reply is the first to follow: the channel says it first. */
  disclosure: string | null;
  /** A human has the conversation now: the session ends, the AI answers no more. */
  handedOver: boolean;
}

/**
 * The customer's message through the pipeline, for a reply within the request. A repeat of the same hop
 * (the provider retrying, the customer's phone resending) is answered with the reply stored the first
 * time, without asking the AI again: `providerMessageId` is the hop's key.
 */
export async function replyWithin(services: Services, routed: RoutedEvent): Promise<SyncReply> {
  const { event, channel } = routed;
  const result = await answerEvent(services, channel, event, providerMessageKey(channel, event));
  const conversationId = result.conversationId;
  if (result.handledBy === "duplicate") return earlierReply(services, channel, conversationId, result.customerMessageId);
  const handedOver = result.handledBy === "escalated" || result.handledBy === "human";
  // A screen or a call must say something: the notice again when it was stored earlier in this wait.
  const text = result.reply?.text ?? waitingNotice(channel.type);
  return { conversationId, text, disclosure: result.disclosure ?? null, handedOver };
}

const repeatWaitMs = 5_000;

/**
 * What was said to a customer message the first time: every assistant message between it and the
 * customer's next one (an answer may be followed by a handoff notice). When the first delivery is still
 * being answered, its reply is waited for, within the provider's time limit.
 */
async function earlierReply(
  services: Services,
  { tenantId, type }: ConfiguredChannel,
  conversationId: string,
  customerMessageId: string,
): Promise<SyncReply> {
  const prisma = services.db.prisma;
  const asked = await prisma.message.findUniqueOrThrow({ where: { id: customerMessageId }, select: { createdAt: true } });
  const deadline = Date.now() + repeatWaitMs;
  for (;;) {
    const [later, conversation] = await Promise.all([
      prisma.message.findMany({
        where: { tenantId, conversationId, createdAt: { gte: asked.createdAt }, id: { not: customerMessageId } },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        select: { role: true, content: true, metadata: true },
        take: 10,
      }),
      prisma.conversation.findUniqueOrThrow({ where: { id: conversationId }, select: { status: true } }),
    ]);
    const next = later.findIndex((m) => m.role === "customer");
    const replies = next === -1 ? later : later.slice(0, next);
    const said = replies.filter((m) => m.role === "assistant").map((m) => m.content);
    const disclosure = replies.find((m) => (m.metadata as { kind?: string } | null)?.kind === disclosureKind)?.content ?? null;
    const handedOver = humanStatuses.has(conversation.status);
    if (said.length) return { conversationId, text: said.join("\n\n"), disclosure, handedOver };
    if (handedOver) return { conversationId, text: waitingNotice(type), disclosure: null, handedOver };
    if (Date.now() > deadline) return { conversationId, text: lostNotice, disclosure: null, handedOver: false };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

type Closable = { id: string; tenantId: string; status: string };

/**
 * Closes a conversation whose session is over, recorded in its timeline. One a human has stays with
 * the humans: the customer was promised an answer.
 */
export async function closeConversation(services: Services, conversation: Closable, reason: string): Promise<void> {
  if (humanStatuses.has(conversation.status) || conversation.status === "closed") return;
  try {
    await services.db.prisma.$transaction((tx) =>
      transitionConversation(tx, conversation, "closed", { actor: "system", reason }),
    );
  } catch (err) {
    // Someone (an agent, the customer's next hop) changed it meanwhile: theirs stands.
    if (!(err instanceof AppError && err.code === "VALIDATION")) throw err;
    services.logger.info({ conversationId: conversation.id, reason }, "conversation changed before it could be closed");
  }
}

/**
 * A new USSD session or call starts a new conversation (DESIGN §3): the customer's earlier one on this
 * channel that the AI still had (a session that timed out, a call whose status callback never came) is
 * closed first.
 */
export async function startSession(
  services: Services,
  channel: ConfiguredChannel,
  customerId: string,
  reason: string,
): Promise<void> {
  const earlier = await services.db.prisma.conversation.findMany({
    where: { tenantId: channel.tenantId, channel: channel.type, customerId, status: { in: ["open", "resolved"] } },
    select: { id: true, tenantId: true, status: true },
  });
  for (const conversation of earlier) await closeConversation(services, conversation, reason);
}
