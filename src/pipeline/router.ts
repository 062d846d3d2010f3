import { defaultIntentClassifier } from "../ai/intents/defaults.js";
import { predictMessage } from "../ai/intents/predict.js";
import type { TenantIntents } from "../ai/intents/tenant.js";
import { appendMessage, type MessageRow } from "../conversations/append-message.js";
import { answerToOffer, offeredPerson } from "../conversations/offer.js";
import { type ConversationRow, startConversation, type UnplacedMessage } from "../conversations/start-conversation.js";
import { finishedStatuses, humanStatuses, transitionConversation } from "../conversations/status.js";
import { newId } from "../db/ids.js";
import type { Statements } from "../db/statements.js";
import { AppError, notFound } from "../errors.js";
import { conversationData, messageData } from "../events/payloads.js";
import type { Services } from "../services.js";
import type { InboundMessage } from "./inbound.js";

export interface Intent {
  intent: string;
  confidence: number;
  agentType: string;
  urgent: boolean;
}

export type Decision =
  | { kind: "ai" }
  | { kind: "human" }
  | { kind: "escalate"; reason: "customer_request" | "urgent_intent" }
  /** "No thanks" to the assistant's offer of a person. */
  | { kind: "acknowledge" };

/**
 * A customer message stored and routed; or a delivery stored and answered before (`duplicate`): nothing
 * more is to be done. A delivery stored by a run that died before answering it is routed again.
 */
export type Routed =
  | { duplicate: true; conversation: ConversationRow; customerMessage: MessageRow }
  | { duplicate: false; conversation: ConversationRow; customerMessage: MessageRow; intent: Intent; decision: Decision };

// A resolved conversation is picked up again when the customer writes within this time; after it, a new one starts.
const reopenWindowMs = 24 * 3600_000;

/**
 * The message's intent among the tenant's intents, with what that intent means for routing: by the engine's own
 * classification when it has one (a model server), else, or when that call fails, by the tenant's local classifier.
 * Intents a tenant defines must not stop a customer reaching a human: a confident built-in escalating intent
 * (src/ai/intents/tenant.ts) takes the place of a tenant's intent that does not escalate, or that escalates less surely.
 */
export async function classifyIntent(services: Services, tenantId: string, text: string): Promise<Intent> {
  const model = await services.intents.forTenant(tenantId);
  const prediction = await predict(services, model, text);
  const meta = model.meta.get(prediction.intent);
  const intent = { ...prediction, agentType: meta?.agentType ?? "faq", urgent: meta?.urgent ?? false };
  if (!model.builtInEscalations.size) return intent;
  const builtIn = await predictMessage(defaultIntentClassifier(), text);
  const escalation = model.builtInEscalations.get(builtIn.intent);
  if (!escalation || builtIn.confidence < escalationConfidence) return intent;
  // Both hand over: the surer one names the reason ("my card was stolen" is a stolen card before it is the tenant's
  // account takeover), which decides the team that takes it.
  return escalates(intent) && intent.confidence >= builtIn.confidence ? intent : { ...builtIn, ...escalation };
}

async function predict(services: Services, model: TenantIntents, text: string): Promise<{ intent: string; confidence: number }> {
  const { engine } = services;
  if (engine.classify) {
    try {
      return await engine.classify(text, [...model.meta.keys()]);
    } catch (err) {
      services.logger.warn(
        { err, engine: engine.name },
        "intent classification by the engine failed; using the local classifier",
      );
    }
  }
  return predictMessage(model.classifier, text);
}

/**
 * Refuses a message that names a conversation it cannot go on: a closed one, or one on another channel. A conversation
 * is one customer's on one channel: a message in another channel's name would reach that customer (an API message
 * continuing a chat-app conversation was sent to the customer's phone).
 */
export function assertContinuable(conversation: { channel: string; status: string }, channel: string): void {
  if (conversation.channel !== channel)
    throw new AppError("VALIDATION", `The conversation is on the ${conversation.channel} channel, not ${channel}`);
  if (conversation.status === "closed") throw new AppError("VALIDATION", "The conversation is closed; start a new one");
}

async function findConversation(services: Services, msg: InboundMessage): Promise<ConversationRow | null> {
  const prisma = services.db.prisma;
  if (msg.conversationId) {
    const found = await prisma.conversation.findFirst({ where: { id: msg.conversationId, tenantId: msg.tenantId } });
    if (!found) throw notFound("Conversation");
    assertContinuable(found, msg.channel);
    return found;
  }
  if (!msg.customer.id) return null;
  const key = { tenantId: msg.tenantId, channel: msg.channel, customerId: msg.customer.id };
  const live = await prisma.conversation.findFirst({ where: { ...key, status: { notIn: [...finishedStatuses] } } });
  if (live) return live;
  return prisma.conversation.findFirst({
    where: { ...key, status: "resolved", updatedAt: { gte: new Date(Date.now() - reopenWindowMs) } },
    orderBy: { updatedAt: "desc" },
  });
}

// Below this the classifier is guessing (its confidence is calibrated so that 0.5 separates sure from unsure):
// a guess must not hand a customer to a human.
const escalationConfidence = 0.5;

const escalates = (intent: Intent) =>
  intent.confidence >= escalationConfidence && (intent.agentType === "handoff" || intent.urgent);

/** Who answers a message of this intent in a conversation no human has: the AI, or a human now. */
export function decideByIntent(intent: Intent): Exclude<Decision, { kind: "human" }> {
  if (!escalates(intent)) return { kind: "ai" };
  return { kind: "escalate", reason: intent.agentType === "handoff" ? "customer_request" : "urgent_intent" };
}

function decide(conversation: ConversationRow, intent: Intent): Decision {
  if (humanStatuses.has(conversation.status)) return { kind: "human" };
  return decideByIntent(intent);
}

/**
 * Finds or creates the customer's conversation (DESIGN §3), stores the message once, and decides
 * who answers it: the AI, a human already in charge, or a human now (escalation). A delivery stored
 * before without a reply (its run died in between) is taken up again in its own conversation.
 */
export async function routeInbound(services: Services, msg: InboundMessage): Promise<Routed> {
  const earlier = await storedDelivery(services, msg);
  if (earlier && (await hasReply(services, earlier.message))) {
    return { duplicate: true, conversation: earlier.conversation, customerMessage: earlier.message };
  }
  const found = earlier?.conversation ?? (await findConversation(services, msg));
  const intent = await classifyIntent(services, msg.tenantId, msg.text);
  const stored = earlier
    ? { conversation: earlier.conversation, message: earlier.message, duplicate: false }
    : await storeMessage(services, msg, found, intent);
  const { conversation, message } = stored;
  if (stored.duplicate) return { duplicate: true, conversation, customerMessage: message };
  return {
    duplicate: false,
    conversation,
    customerMessage: message,
    intent,
    decision: await replyToOffer(services, conversation, message, decide(conversation, intent)),
  };
}

/** The provider's message as stored by an earlier delivery, with its conversation. */
async function storedDelivery(
  services: Services,
  msg: InboundMessage,
): Promise<{ message: MessageRow; conversation: ConversationRow } | null> {
  if (!msg.providerMessageId) return null;
  const found = await services.db.prisma.message.findFirst({
    where: { tenantId: msg.tenantId, providerMessageId: msg.providerMessageId },
    include: { conversation: true },
  });
  if (!found) return null;
  const { conversation, ...message } = found;
  return { message, conversation };
}

async function hasReply(services: Services, message: MessageRow): Promise<boolean> {
  return (await services.db.prisma.message.findUnique({ where: { replyTo: message.id }, select: { id: true } })) !== null;
}

/** "Yes please" after the assistant offered a person hands over at once; "no thanks" is acknowledged. */
async function replyToOffer(
  services: Services,
  conversation: ConversationRow,
  message: MessageRow,
  decision: Decision,
): Promise<Decision> {
  const answer = decision.kind === "ai" ? answerToOffer(message.content) : null;
  if (!answer || !(await offeredPerson(services, conversation, message.id))) return decision;
  return answer === "accept" ? { kind: "escalate", reason: "customer_request" } : { kind: "acknowledge" };
}

type Stored = { conversation: ConversationRow; message: MessageRow; duplicate: boolean };

/** The customer's message stored in its conversation, or with a new conversation when it has none. */
async function storeMessage(
  services: Services,
  msg: InboundMessage,
  found: ConversationRow | null,
  intent: Intent,
): Promise<Stored> {
  const message = {
    id: newId("msg"),
    role: "customer",
    content: msg.text,
    providerMessageId: msg.providerMessageId ?? null,
    metadata: { intent: intent.intent, confidence: intent.confidence },
  };
  try {
    let conversation = found;
    // Two first messages of one customer at once: one starts the conversation and the other joins it, unless it is
    // closed meanwhile, when the next first message starts another.
    for (let attempt = 0; !conversation; attempt++) {
      if (attempt === maxStartAttempts) throw new Error("The customer's conversation kept changing while a message was stored");
      const started = await startWith(services, msg, message);
      if (started) return { ...started, duplicate: false };
      conversation = await findConversation(services, msg);
    }
    return { conversation, message: await appendTo(services, msg, conversation, message), duplicate: false };
  } catch (err) {
    // The same delivery arriving twice at once: the unique index let only one of them in.
    const seen = await storedDelivery(services, msg);
    if (seen) return { conversation: seen.conversation, message: seen.message, duplicate: true };
    throw err;
  }
}

const maxStartAttempts = 3;

/** A new conversation with its first message: with its two events, in one transaction when an endpoint wants either. */
function startWith(services: Services, msg: InboundMessage, message: UnplacedMessage) {
  const conversation = {
    id: newId("conv"),
    tenantId: msg.tenantId,
    channel: msg.channel,
    channelId: msg.channelId ?? null,
    customerId: msg.customer.id,
    customerPhone: msg.customer.phone ?? null,
    customerName: msg.customer.name ?? null,
  };
  type Started = Awaited<ReturnType<typeof startConversation>>;
  return services.events.withEvents<Started>(
    services.db.prisma,
    msg.tenantId,
    [
      { type: "conversation.created", data: (started) => started && conversationData(started.conversation) },
      { type: "message.received", data: (started) => started && messageData(started.message) },
    ],
    (tx) => startConversation(tx, conversation, message),
    services.db.statements,
  );
}

/** A message appended to the customer's conversation, which it opens again when it was resolved. */
async function appendTo(
  services: Services,
  msg: InboundMessage,
  conversation: ConversationRow,
  message: UnplacedMessage,
): Promise<MessageRow> {
  const append = (tx: Statements) => appendMessage(tx, { ...message, tenantId: msg.tenantId, conversationId: conversation.id });
  const event = { tenantId: msg.tenantId, type: "message.received" as const, data: messageData };
  if (conversation.status !== "resolved") {
    // The usual case, a conversation going on with no endpoint wanting the event, is one statement.
    return services.events.withEvent(services.db.prisma, event, append, services.db.statements);
  }
  return services.db.prisma.$transaction(async (tx) => {
    await transitionConversation(tx, conversation, "open", { actor: "customer", reason: "customer wrote again" });
    const stored = await append(tx);
    await services.events.record(tx, msg.tenantId, event.type, messageData(stored));
    return stored;
  });
}
