import type { Answer, ContextChunk } from "../ai/engine.js";
import { EngineError } from "../ai/engine.js";
import { AlreadyAnswered } from "../conversations/append-message.js";
import { discloseAtStart } from "../conversations/disclosure.js";
import { escalateConversation } from "../conversations/escalate.js";
import { pickedSuggestion } from "../conversations/offer.js";
import { acknowledgeWaiting, waitingNoticeMetadata } from "../conversations/waiting.js";
import type { Prisma } from "../db/generated/prisma/client.js";
import { newId } from "../db/ids.js";
import { AppError } from "../errors.js";
import { publishActivity } from "../escalations/inbox.js";
import { answerSurvey } from "../feedback/survey.js";
import type { Services } from "../services.js";
import { type AnswerSettings, answerInput } from "./answer-settings.js";
import { deliverReply } from "./deliver.js";
import type { InboundMessage } from "./inbound.js";
import { type Ahead, type Retrieved, retrieve, searchAhead } from "./retriever.js";
import { type Intent, type Routed, routeInbound } from "./router.js";
import { selfHelp } from "./self-help.js";

export interface ReplyMetadata {
  intent: string;
  confidence: number;
  agentType: string;
  tokensUsed: number;
  sources: Answer["sources"];
  /** The FAQ questions a decline lists, by number (src/ai/local.ts): a surface may offer them as buttons. */
  suggestions?: string[];
}

export interface PipelineResult {
  conversationId: string;
  customerMessageId: string;
  /**
   * The reply sent to the customer: null for a redelivery, and when a human has the conversation and the
   * customer was already told so in this wait (src/conversations/waiting.ts).
   */
  reply: { id: string; text: string; metadata: ReplyMetadata } | null;
  /** `queued`: a hand-off asked for out of business hours; the AI keeps answering until a person takes it. */
  handledBy: "ai" | "human" | "escalated" | "queued" | "duplicate";
  /** The AI disclosure this reply is the first to follow (src/conversations/disclosure.ts), for surfaces that prefix it. */
  disclosure?: string | null;
}

export interface PipelineHooks {
  /** Ids are known before the answer is: streaming clients get them first. */
  onStart?(ids: { conversationId: string; messageId: string }): void;
  onDelta?(text: string): void;
  /** The conversation's AI disclosure was stored: its line, before the reply's own events. */
  onDisclosure?(text: string): void;
  signal?: AbortSignal;
}

/** Milliseconds per stage of one message, for its log line. */
type StageTimings = Record<string, number>;

async function timed<T>(
  services: Services,
  took: StageTimings,
  stage: string,
  channel: string,
  work: () => Promise<T>,
): Promise<T> {
  const end = services.metrics.pipelineStage.startTimer({ stage, channel });
  try {
    return await work();
  } finally {
    took[stage] = Math.round(end() * 10_000) / 10;
  }
}

type StreakHolder = { id: string; tenantId: string; metadata: Prisma.JsonValue };

const storedStreak = (conversation: StreakHolder) =>
  ((conversation.metadata ?? {}) as { lowConfidenceStreak?: number }).lowConfidenceStreak ?? 0;

/** Whether an answer the AI cannot ground, next in this conversation, reaches the tenant's limit and escalates. */
const declineHandsOver = (conversation: StreakHolder, limit: number) => storedStreak(conversation) + 1 >= limit;

/**
 * Consecutive answers the AI could not ground; the tenant's limit of them escalates (DESIGN §3). What the answer makes
 * of the conversation's streak: the metadata that records it, stored with the reply, when it changes.
 */
function grounding(
  conversation: StreakHolder,
  grounded: boolean,
  limit: number,
): { record?: Prisma.InputJsonObject; handsOver: boolean } {
  const before = storedStreak(conversation);
  const streak = grounded ? 0 : before + 1;
  // A grounded answer in a conversation without a streak changes nothing: the common case writes nothing more.
  if (streak === before) return { handsOver: false };
  return { record: { lowConfidenceStreak: streak }, handsOver: streak >= limit };
}

/**
 * The agent type an AI answer reports. A hand-off intent below the escalation bar was answered by the AI, not handed
 * off: reporting "handoff" would tell the channel and the analytics of a hand-off that never happened.
 */
const answeringAgent = (intent: Intent) => (intent.agentType === "handoff" ? "faq" : intent.agentType);

function metadataOf(
  intent: Intent,
  agentType: string,
  answer: Pick<Answer, "tokensUsed" | "sources" | "suggestions">,
): ReplyMetadata {
  return {
    intent: intent.intent,
    confidence: intent.confidence,
    agentType,
    tokensUsed: answer.tokensUsed,
    sources: answer.sources,
    ...(answer.suggestions ? { suggestions: answer.suggestions } : {}),
  };
}

export const unreadableNotice =
  'Sorry, I can only read text messages. Please type your question, or write "agent" to talk to a person.';

export const offerRefusedNotice = "All right. Is there anything else I can help you with?";

/** The retriever stage of a routed message, timed: its knowledge (searched ahead) and the conversation's recent turns. */
function retrieverStage(
  services: Services,
  took: StageTimings,
  msg: InboundMessage,
  routed: Extract<Routed, { duplicate: false }>,
  search: { settings: AnswerSettings; knowledge: Promise<readonly ContextChunk[]>; text: string | null },
): Promise<Retrieved> {
  const { conversation, customerMessage } = routed;
  return timed(services, took, "retriever", msg.channel, () =>
    retrieve(services, {
      tenantId: msg.tenantId,
      conversationId: conversation.id,
      customerMessageId: customerMessage.id,
      earlierMessages: conversation.messageCount,
      ...search,
    }),
  );
}

/** The knowledge base's answer after an urgent message's hand-off notice, stored and sent as a message of its own. */
async function urgentHelp(
  services: Services,
  msg: InboundMessage,
  routed: Extract<Routed, { duplicate: false }>,
  hooks: PipelineHooks,
  took: StageTimings,
  ahead: Ahead,
): Promise<Answer | null> {
  const { conversation, intent } = routed;
  const settings = await ahead.settings;
  const retrieved = await retrieverStage(services, took, msg, routed, { settings, knowledge: ahead.knowledge, text: msg.text });
  const help = await timed(services, took, "engine", msg.channel, () =>
    selfHelp(services, answerInput(settings, msg, retrieved, { signal: hooks.signal })),
  );
  if (!help) return null;
  await deliverReply(services, {
    id: newId("msg"),
    tenantId: msg.tenantId,
    conversationId: conversation.id,
    channel: msg.channel,
    role: "assistant",
    content: help.text,
    metadata: {
      ...metadataOf(intent, answeringAgent(intent), help),
      grounded: true,
      selfHelp: true,
    } as unknown as Prisma.InputJsonObject,
  });
  return help;
}

/** A fixed reply of the assistant's, stored and delivered on the customer's channel like an answer. */
async function replyWith(
  services: Services,
  msg: InboundMessage,
  base: Pick<PipelineResult, "conversationId" | "customerMessageId">,
  hooks: PipelineHooks,
  reply: { text: string; intent: string; agentType: string; extra?: Prisma.InputJsonObject },
  handledBy: PipelineResult["handledBy"],
): Promise<PipelineResult> {
  const id = newId("msg");
  hooks.onStart?.({ conversationId: base.conversationId, messageId: id });
  hooks.onDelta?.(reply.text);
  const metadata: ReplyMetadata = { intent: reply.intent, confidence: 1, agentType: reply.agentType, tokensUsed: 0, sources: [] };
  await deliverReply(services, {
    id,
    tenantId: msg.tenantId,
    conversationId: base.conversationId,
    channel: msg.channel,
    role: "assistant",
    content: reply.text,
    metadata: { ...metadata, ...reply.extra } as unknown as Prisma.InputJsonObject,
    replyTo: base.customerMessageId,
  });
  return { ...base, reply: { id, text: reply.text, metadata }, handledBy };
}

/** A picture, sticker or voice note: the AI cannot read it, so the customer is asked, politely, to write. */
function replyUnreadable(
  services: Services,
  msg: InboundMessage,
  base: Pick<PipelineResult, "conversationId" | "customerMessageId">,
  hooks: PipelineHooks,
): Promise<PipelineResult> {
  const reply = {
    text: unreadableNotice,
    intent: "unsupported_message",
    agentType: "fallback",
    extra: { received: msg.kind ?? null },
  };
  return replyWith(services, msg, base, hooks, reply, "ai");
}

/**
 * The one pipeline every channel uses: router → retriever → engine → deliver. Channels call this
 * and nothing else. Each message gets one log line with its stage timings (and none of its text).
 */
export async function handleInbound(services: Services, msg: InboundMessage, hooks: PipelineHooks = {}): Promise<PipelineResult> {
  const took: StageTimings = {};
  const started = performance.now();
  let result: PipelineResult | undefined;
  try {
    result = await runPipeline(services, msg, hooks, took);
    return result;
  } finally {
    services.logger.info(
      {
        tenantId: msg.tenantId,
        channel: msg.channel,
        conversationId: result?.conversationId,
        handledBy: result?.handledBy ?? "failed",
        stagesMs: took,
        totalMs: Math.round((performance.now() - started) * 10) / 10,
      },
      "message handled",
    );
  }
}

async function runPipeline(
  services: Services,
  msg: InboundMessage,
  hooks: PipelineHooks,
  took: StageTimings,
): Promise<PipelineResult> {
  const ahead = searchAhead(services, msg);
  const scored = await answerSurvey(services, msg);
  if (scored) return scored;
  const routed = await timed(services, took, "router", msg.channel, () => routeInbound(services, msg));
  const base = { conversationId: routed.conversation.id, customerMessageId: routed.customerMessage.id };
  if (routed.duplicate) return { ...base, reply: null, handledBy: "duplicate" };
  publishActivity(services, msg.tenantId, { conversationId: base.conversationId, messageId: base.customerMessageId });
  try {
    return await respond(services, msg, routed, hooks, took, ahead);
  } catch (err) {
    // A run of the same delivery stored its reply first: that one stands.
    if (err instanceof AlreadyAnswered) return { ...base, reply: null, handledBy: "duplicate" };
    throw err;
  }
}

/**
 * The reply to a routed customer message, linked to it: a customer message gets one reply at most. The first
 * reply of a conversation follows the AI disclosure.
 */
async function respond(
  services: Services,
  msg: InboundMessage,
  routed: Extract<Routed, { duplicate: false }>,
  hooks: PipelineHooks,
  took: StageTimings,
  ahead: Ahead,
): Promise<PipelineResult> {
  const { conversation, customerMessage, decision } = routed;
  const base = { conversationId: conversation.id, customerMessageId: customerMessage.id };
  if (decision.kind === "human") {
    services.realtime.pubsub.publish("inbox:message", msg.tenantId, {
      conversationId: conversation.id,
      messageId: customerMessage.id,
    });
    const notice = await acknowledgeWaiting(services, { conversation, customerMessageId: customerMessage.id });
    if (!notice) return { ...base, reply: null, handledBy: "human" };
    hooks.onStart?.({ conversationId: conversation.id, messageId: notice.id });
    hooks.onDelta?.(notice.text);
    return { ...base, reply: { ...notice, metadata: waitingNoticeMetadata }, handledBy: "human" };
  }
  const disclosure = await discloseAtStart(services, conversation);
  if (disclosure) hooks.onDisclosure?.(disclosure);
  return { ...(await aiReply(services, msg, routed, hooks, took, ahead)), disclosure };
}

/** The reply of the AI (an answer or a notice), or the hand-over to a human. */
async function aiReply(
  services: Services,
  msg: InboundMessage,
  routed: Extract<Routed, { duplicate: false }>,
  hooks: PipelineHooks,
  took: StageTimings,
  ahead: Ahead,
): Promise<PipelineResult> {
  const { conversation, customerMessage, intent, decision } = routed;
  const base = { conversationId: conversation.id, customerMessageId: customerMessage.id };
  if (msg.kind && msg.kind !== "text") return replyUnreadable(services, msg, base, hooks);
  if (decision.kind === "acknowledge") {
    return replyWith(
      services,
      msg,
      base,
      hooks,
      { text: offerRefusedNotice, intent: intent.intent, agentType: "smalltalk" },
      "ai",
    );
  }
  if (decision.kind === "escalate") {
    const notice = await escalateConversation(services, conversation, decision.reason, {
      intent: intent.intent,
      replyTo: customerMessage.id,
    });
    hooks.onStart?.({ conversationId: conversation.id, messageId: notice.messageId });
    hooks.onDelta?.(notice.text);
    const help = decision.reason === "urgent_intent" ? await urgentHelp(services, msg, routed, hooks, took, ahead) : null;
    // Stored and sent as a message of its own after the notice, and told in this reply too: an API client shows only the reply.
    const told = help ? `\n\n${help.text}` : "";
    if (help) hooks.onDelta?.(told);
    const metadata = metadataOf(intent, "handoff", help ?? { tokensUsed: 0, sources: [] });
    const handledBy = notice.queued ? "queued" : "escalated";
    return { ...base, reply: { id: notice.messageId, text: notice.text + told, metadata }, handledBy };
  }

  // "2" after a reply that listed questions asks the second of them: that question is searched and answered.
  const picked = conversation.messageCount > 0 ? await pickedSuggestion(services, conversation, customerMessage) : null;
  const asked = picked ? { ...msg, text: picked } : msg;
  // Marked on the reply, for analytics: how often a listed question is what the customer wanted.
  const chosen = picked !== null || msg.choice === true;
  const known = picked ? searchAhead(services, asked) : ahead;
  const replyId = newId("msg");
  hooks.onStart?.({ conversationId: conversation.id, messageId: replyId });
  const settings = await known.settings;
  const retrieved = await retrieverStage(services, took, msg, routed, {
    settings,
    knowledge: known.knowledge,
    text: picked ? null : asked.text,
  });
  // A decline that hands over lists no questions to pick from: the team answers next.
  const options = { signal: hooks.signal, offerChoices: !declineHandsOver(conversation, settings.lowConfidenceLimit) };
  let streamed = "";
  let answer: Answer;
  try {
    answer = await timed(services, took, "engine", msg.channel, () =>
      services.engine.answer(answerInput(settings, asked, retrieved, options), (text) => {
        streamed += text;
        hooks.onDelta?.(text);
      }),
    );
  } catch (err) {
    if (hooks.signal?.aborted && streamed) {
      // The client went away mid-answer: keep what was said, marked as cut short.
      await deliverReply(services, {
        id: replyId,
        tenantId: msg.tenantId,
        conversationId: conversation.id,
        channel: msg.channel,
        role: "assistant",
        content: streamed,
        metadata: {
          ...metadataOf(intent, answeringAgent(intent), { tokensUsed: 0, sources: [] }),
          partial: true,
        } as unknown as Prisma.InputJsonObject,
        replyTo: customerMessage.id,
      });
      throw err;
    }
    if (err instanceof EngineError) throw new AppError("EXTERNAL", `The AI model server failed: ${err.message}`);
    throw err;
  }

  const agentType = answer.grounded ? answeringAgent(intent) : "fallback";
  const metadata = metadataOf(intent, agentType, answer);
  const streak = grounding(conversation, answer.grounded, settings.lowConfidenceLimit);
  await timed(services, took, "deliver", msg.channel, () =>
    deliverReply(services, {
      id: replyId,
      tenantId: msg.tenantId,
      conversationId: conversation.id,
      channel: msg.channel,
      role: "assistant",
      content: answer.text,
      metadata: { ...metadata, grounded: answer.grounded, ...(chosen ? { chosen } : {}) } as unknown as Prisma.InputJsonObject,
      replyTo: customerMessage.id,
      conversationMetadata: streak.record,
    }),
  );
  if (streak.handsOver) {
    const notice = await escalateConversation(services, conversation, "low_confidence", { intent: intent.intent });
    // Stored and sent as a message of its own, and told in this reply too: an API client shows only the reply.
    const told = `\n\n${notice.text}`;
    hooks.onDelta?.(told);
    const handledBy = notice.queued ? "queued" : "escalated";
    return { ...base, reply: { id: replyId, text: answer.text + told, metadata }, handledBy };
  }
  return { ...base, reply: { id: replyId, text: answer.text, metadata }, handledBy: "ai" };
}
