import { sendsThroughProvider } from "../channels/registry.js";
import { AlreadyAnswered } from "../conversations/append-message.js";
import type { Prisma } from "../db/generated/prisma/client.js";
import { newId } from "../db/ids.js";
import { scopeToTenant } from "../db/tenant-scope.js";
import { deliverReply, type ReplyToStore } from "../pipeline/deliver.js";
import type { InboundMessage } from "../pipeline/inbound.js";
import type { PipelineResult } from "../pipeline/index.js";
import type { Services } from "../services.js";
import { recordFeedback } from "./record.js";

// The one-question satisfaction score at resolution. The widget shows the question with buttons; on text channels
// (chat app, SMS, Telegram, Messenger, Instagram, X, Slack) it is sent as a message, and the customer's numeric
// reply within the window is recorded as the score rather than answered by the AI; API callers ask it themselves
// and send the score (rateConversation). A USSD session or a call is over by then: nothing is asked.

type MessageRow = Prisma.MessageGetPayload<object>;

export const surveyKind = "survey";
export const surveyQuestion =
  "How satisfied are you with the help you got? Reply with a number from 1 (not at all) to 5 (very satisfied).";
export const surveyThanks = "Thank you for your feedback!";
/** How long the question stays open: a reply after it is an ordinary message again. */
export const surveyWindowMs = 24 * 3600_000;

/** Asks a resolved conversation's customer for a score, where the channel allows. */
export async function askSatisfaction(services: Services, conversation: { id: string; tenantId: string; channel: string }) {
  const asksByMessage = conversation.channel === "widget" || sendsThroughProvider(conversation.channel);
  if (!asksByMessage && conversation.channel !== "api") return;
  const surveyId = newId("csat");
  const question: ReplyToStore | null = asksByMessage
    ? {
        id: newId("msg"),
        tenantId: conversation.tenantId,
        conversationId: conversation.id,
        channel: conversation.channel,
        role: "system",
        content: surveyQuestion,
        metadata: { kind: surveyKind, surveyId },
      }
    : null;
  await services.db.prisma.satisfactionSurvey.create({
    data: {
      id: surveyId,
      tenantId: conversation.tenantId,
      conversationId: conversation.id,
      channel: conversation.channel,
      questionMessageId: question?.id ?? null,
      expiresAt: new Date(Date.now() + surveyWindowMs),
    },
  });
  if (question) await deliverReply(services, question);
}

/** A reply that is a score and nothing else: "4", "5/5", "3 stars", "2 out of 5". */
export function scoreOf(text: string): number | null {
  const match = text.trim().match(/^([1-5])(?:\s*(?:\/\s*5|out of 5|stars?))?\s*[.!]?$/i);
  return match ? Number(match[1]) : null;
}

/**
 * A customer's numeric reply to an open satisfaction question of their resolved conversation on this channel:
 * stored in that conversation (which stays resolved), recorded as its score and thanked, without the AI. Null
 * when the message is anything else, which then goes through the pipeline as usual. A redelivery resumes.
 */
export async function answerSurvey(services: Services, msg: InboundMessage): Promise<PipelineResult | null> {
  const score = scoreOf(msg.text);
  if (score === null || !msg.customer.id || (msg.kind && msg.kind !== "text")) return null;
  const prisma = services.db.prisma;
  const earlier = msg.providerMessageId
    ? await prisma.message.findFirst({ where: { tenantId: msg.tenantId, providerMessageId: msg.providerMessageId } })
    : null;
  if (earlier && (earlier.metadata as { kind?: string }).kind !== "survey_answer") return null;
  const survey = earlier
    ? null
    : await prisma.satisfactionSurvey.findFirst({
        where: {
          tenantId: msg.tenantId,
          channel: msg.channel,
          answeredAt: null,
          expiresAt: { gt: new Date() },
          conversation: { customerId: msg.customer.id, status: "resolved" },
        },
        orderBy: { askedAt: "desc" },
      });
  if (!earlier && !survey) return null;
  const stored = earlier ? { message: earlier, duplicate: false } : await storeAnswer(services, msg, survey!, score);
  const answer = stored.message;
  const base = { conversationId: answer.conversationId, customerMessageId: answer.id };
  if (stored.duplicate) return { ...base, reply: null, handledBy: "duplicate" };
  await recordFeedback(services, scopeToTenant(prisma, msg.tenantId), {
    kind: "satisfaction",
    conversationId: answer.conversationId,
    score,
    source: "reply",
  });
  const thanks: ReplyToStore = {
    id: newId("msg"),
    tenantId: msg.tenantId,
    conversationId: answer.conversationId,
    channel: msg.channel,
    role: "system",
    content: surveyThanks,
    metadata: { kind: "survey_thanks" },
    replyTo: answer.id,
  };
  try {
    await deliverReply(services, thanks);
  } catch (err) {
    if (err instanceof AlreadyAnswered) return { ...base, reply: null, handledBy: "duplicate" };
    throw err;
  }
  const metadata = { intent: "satisfaction_score", confidence: 1, agentType: "feedback", tokensUsed: 0, sources: [] };
  return { ...base, reply: { id: thanks.id, text: surveyThanks, metadata }, handledBy: "ai" };
}

/** The customer's score as a message of the resolved conversation, or the one of the same delivery that got in first. */
async function storeAnswer(
  services: Services,
  msg: InboundMessage,
  survey: { id: string; conversationId: string },
  score: number,
): Promise<{ message: MessageRow; duplicate: boolean }> {
  const { conversationId } = survey;
  try {
    const message = await services.db.prisma.$transaction(async (tx) => {
      const message = await tx.message.create({
        data: {
          id: newId("msg"),
          tenantId: msg.tenantId,
          conversationId,
          role: "customer",
          content: msg.text,
          providerMessageId: msg.providerMessageId ?? null,
          metadata: { kind: "survey_answer", surveyId: survey.id, score } as Prisma.InputJsonObject,
        },
      });
      await tx.conversation.update({ where: { id: conversationId }, data: { messageCount: { increment: 1 } } });
      return message;
    });
    return { message, duplicate: false };
  } catch (err) {
    // The same delivery twice at once: the unique provider id let one in, and that one answers.
    const first = msg.providerMessageId
      ? await services.db.prisma.message.findFirst({
          where: { tenantId: msg.tenantId, providerMessageId: msg.providerMessageId },
        })
      : null;
    if (first) return { message: first, duplicate: true };
    throw err;
  }
}
