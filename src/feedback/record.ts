import type { MessageFeedback, SatisfactionSurvey } from "../db/generated/prisma/client.js";
import { newId } from "../db/ids.js";
import type { TenantDb } from "../db/tenant-scope.js";
import { AppError, notFound } from "../errors.js";
import type { Services } from "../services.js";

// Customer feedback (issue 12, item 8): a thumbs up or down on one of the AI's replies, and the satisfaction score
// (1 to 5) of a resolved conversation. Every way feedback arrives (the widget's buttons, the REST and GraphQL calls,
// a customer's numeric reply to the question on a text channel) records it through `recordFeedback`, which writes
// the `feedback.given` event for tenant webhooks in the same transaction.

export const ratings = ["up", "down"] as const;
export type Rating = (typeof ratings)[number];
export type FeedbackSource = "widget" | "api" | "reply";

export interface RatingInput {
  kind: "rating";
  messageId: string;
  rating: Rating;
  comment?: string | null;
  source: FeedbackSource;
  /** The conversation the giver may rate in (a widget visitor's own); any of the tenant's when absent. */
  conversationId?: string;
}

export interface SatisfactionInput {
  kind: "satisfaction";
  conversationId: string;
  score: number;
  source: FeedbackSource;
}

export type FeedbackInput = RatingInput | SatisfactionInput;

interface RatingRecord {
  kind: "rating";
  feedback: MessageFeedback;
}

interface SatisfactionRecord {
  kind: "satisfaction";
  survey: SatisfactionSurvey;
}

export type FeedbackRecord = RatingRecord | SatisfactionRecord;

/**
 * Records a customer's feedback within the tenant: a rating of an AI reply (given again, it replaces the first: one
 * per message), or the score of the conversation's open satisfaction question (answered again before it expires,
 * the score is changed). Another tenant's message or conversation is 404; feedback on what is not an AI reply, or
 * a score with no question open, is 422.
 */
export function recordFeedback(services: Services, db: TenantDb, input: RatingInput): Promise<RatingRecord>;
export function recordFeedback(services: Services, db: TenantDb, input: SatisfactionInput): Promise<SatisfactionRecord>;
export function recordFeedback(services: Services, db: TenantDb, input: FeedbackInput): Promise<FeedbackRecord> {
  return input.kind === "rating" ? rateReply(services, db, input) : scoreConversation(services, db, input);
}

/** The `feedback.given` event's data: what was given, on which message or conversation, never a comment's text. */
function feedbackData(record: FeedbackRecord): object {
  if (record.kind === "rating") {
    const { id, messageId, conversationId, channel, rating, source, updatedAt } = record.feedback;
    return {
      feedback: {
        id,
        kind: "rating",
        message_id: messageId,
        conversation_id: conversationId,
        channel,
        rating,
        source,
        given_at: updatedAt,
      },
    };
  }
  const { id, conversationId, score, answeredAt } = record.survey;
  return { feedback: { id, kind: "satisfaction", conversation_id: conversationId, score, given_at: answeredAt } };
}

async function rateReply(services: Services, db: TenantDb, input: RatingInput): Promise<RatingRecord> {
  const message = await db.message.findUnique({
    where: { id: input.messageId },
    select: { id: true, tenantId: true, role: true, conversationId: true, conversation: { select: { channel: true } } },
  });
  if (!message || (input.conversationId && message.conversationId !== input.conversationId)) throw notFound("Message");
  if (message.role !== "assistant") {
    throw new AppError("VALIDATION", "Only the AI's replies take a rating", [
      { path: "messageId", message: `a ${message.role} message` },
    ]);
  }
  const values = { rating: input.rating, comment: input.comment ?? null, source: input.source };
  // The feedback and its event in one transaction (feedback is rare: no need to skip it for tenants without endpoints).
  const feedback = await db.$transaction(async (tx) => {
    const row = await tx.messageFeedback.upsert({
      where: { messageId: message.id },
      create: {
        id: newId("fbk"),
        tenantId: message.tenantId,
        messageId: message.id,
        conversationId: message.conversationId,
        channel: message.conversation.channel,
        ...values,
      },
      update: values,
    });
    await services.events.record(tx, message.tenantId, "feedback.given", feedbackData({ kind: "rating", feedback: row }));
    return row;
  });
  return { kind: "rating", feedback };
}

async function scoreConversation(services: Services, db: TenantDb, input: SatisfactionInput): Promise<SatisfactionRecord> {
  if (!Number.isInteger(input.score) || input.score < 1 || input.score > 5) {
    throw new AppError("VALIDATION", "A satisfaction score is a whole number from 1 to 5", [
      { path: "score", message: "1 to 5" },
    ]);
  }
  const conversation = await db.conversation.findUnique({ where: { id: input.conversationId }, select: { id: true } });
  if (!conversation) throw notFound("Conversation");
  const now = new Date();
  const survey = await db.satisfactionSurvey.findFirst({
    where: { conversationId: conversation.id, expiresAt: { gt: now } },
    orderBy: { askedAt: "desc" },
  });
  if (!survey) {
    throw new AppError("VALIDATION", "No satisfaction question is open for this conversation: it is asked when it is resolved", [
      { path: "conversationId", message: "no open satisfaction question" },
    ]);
  }
  const answered = await db.$transaction(async (tx) => {
    const row = await tx.satisfactionSurvey.update({ where: { id: survey.id }, data: { score: input.score, answeredAt: now } });
    await services.events.record(tx, survey.tenantId, "feedback.given", feedbackData({ kind: "satisfaction", survey: row }));
    return row;
  });
  return { kind: "satisfaction", survey: answered };
}
