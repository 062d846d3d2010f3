import { z } from "zod";
import { authenticateWidget } from "../channels/widget-access.js";
import { currentConversation, requireVisitorId } from "../channels/widget-visitor.js";
import { notFound } from "../errors.js";
import { ratings, recordFeedback } from "../feedback/record.js";
import { parseInput } from "../graphql/validate.js";
import type { RateLimits } from "../http/rate-limit.js";
import type { Services } from "../services.js";
import { runOperation } from "./execute.js";
import {
  type FeedbackFieldsFragment,
  RateConversationDocument,
  RateMessageDocument,
  type SurveyFieldsFragment,
} from "./generated.js";
import { objectBody, type RestRoute } from "./route.js";

const FeedbackRecord = z.object({
  message_id: z.string(),
  conversation_id: z.string(),
  channel: z.string(),
  rating: z.enum(ratings),
  comment: z.string().nullable(),
  source: z.string().describe("widget, api, or reply (a customer's text reply to the question)"),
  created_at: z.string(),
  updated_at: z.string(),
});

const SurveyRecord = z.object({
  id: z.string(),
  conversation_id: z.string(),
  channel: z.string(),
  score: z.number().int().nullable(),
  asked_at: z.string(),
  expires_at: z.string(),
  answered_at: z.string().nullable(),
});

// The GraphQL result's fields, or a stored row's (the widget's routes record directly): dates go out as ISO 8601.
type WithDates<T, K extends keyof T> = Omit<T, K> & { [P in K]: T[P] | Date };

const feedbackRecord = (
  f: WithDates<Omit<FeedbackFieldsFragment, "rating"> & { rating: string }, "createdAt" | "updatedAt">,
) => ({
  message_id: f.messageId,
  conversation_id: f.conversationId,
  channel: f.channel,
  rating: f.rating,
  comment: f.comment,
  source: f.source,
  created_at: f.createdAt,
  updated_at: f.updatedAt,
});

const surveyRecord = (s: WithDates<SurveyFieldsFragment, "askedAt" | "expiresAt" | "answeredAt">) => ({
  id: s.id,
  conversation_id: s.conversationId,
  channel: s.channel,
  score: s.score,
  asked_at: s.askedAt,
  expires_at: s.expiresAt,
  answered_at: s.answeredAt,
});

const ratingBody = z.object({
  rating: z.enum(ratings).describe("up or down"),
  comment: z.string().optional().describe("up to 1,000 characters"),
});
const scoreBody = z.object({ score: z.number().int().min(1).max(5).describe("1 (not at all) to 5 (very satisfied)") });
const widgetRatingBody = ratingBody.extend({
  message_id: z.string().min(1).max(100).describe("an AI reply of the visitor's conversation"),
});
const widgetAuth = "X-Widget-Token and X-Widget-Visitor, from a page whose origin is on the channel's allow-list";

export function feedbackRoutes(services: Services, limits: RateLimits): RestRoute[] {
  return [
    {
      method: "post",
      path: "/api/messages/:id/feedback",
      tag: "Feedback",
      summary: "A customer's thumbs up or down on an AI reply ({rating: up|down, comment?}); given again, it replaces the first",
      body: ratingBody,
      response: { status: 200, description: "The message's feedback", schema: FeedbackRecord },
      errors: [401, 403, 404, 422, 429],
      async handle(req) {
        const body = objectBody(req.body);
        const { rateMessage } = await runOperation(services, req, RateMessageDocument, {
          messageId: String(req.params.id),
          rating: body.rating as never,
          comment: body.comment as string | undefined,
        });
        return feedbackRecord(rateMessage);
      },
    },
    {
      method: "post",
      path: "/api/conversations/:id/satisfaction",
      tag: "Feedback",
      summary: "The satisfaction score ({score: 1-5}) of a resolved conversation, while its question is open (24 hours)",
      body: scoreBody,
      response: { status: 200, description: "The answered question", schema: SurveyRecord },
      errors: [401, 403, 404, 422, 429],
      async handle(req) {
        const body = objectBody(req.body);
        const { rateConversation } = await runOperation(services, req, RateConversationDocument, {
          conversationId: String(req.params.id),
          score: body.score as number,
        });
        return surveyRecord(rateConversation);
      },
    },
    {
      method: "post",
      path: "/api/v1/widget/feedback",
      tag: "Widget",
      auth: "self",
      summary: `The visitor's thumbs up or down on an AI reply of their conversation ({message_id, rating, comment?}) (${widgetAuth})`,
      body: widgetRatingBody,
      response: { status: 200, description: "The message's feedback", schema: FeedbackRecord },
      errors: [401, 403, 404, 422, 429],
      async handle(req, res) {
        const { db } = await authenticateWidget(services, limits, req, res);
        const visitorId = requireVisitorId(req);
        const input = parseInput(widgetRatingBody, req.body ?? {});
        const conversation = await currentConversation(db, visitorId);
        if (!conversation) throw notFound("Message");
        const { message_id: messageId, ...rating } = input;
        const recorded = await recordFeedback(services, db, {
          kind: "rating",
          messageId,
          ...rating,
          source: "widget",
          conversationId: conversation.id,
        });
        return feedbackRecord(recorded.feedback);
      },
    },
    {
      method: "post",
      path: "/api/v1/widget/satisfaction",
      tag: "Widget",
      auth: "self",
      summary: `The visitor's satisfaction score ({score: 1-5}) for their resolved conversation, while its question is open (${widgetAuth})`,
      body: scoreBody,
      response: { status: 200, description: "The answered question", schema: SurveyRecord },
      errors: [401, 403, 404, 422, 429],
      async handle(req, res) {
        const { db } = await authenticateWidget(services, limits, req, res);
        const visitorId = requireVisitorId(req);
        const { score } = parseInput(scoreBody, req.body ?? {});
        const conversation = await currentConversation(db, visitorId);
        if (!conversation) throw notFound("Conversation");
        const recorded = await recordFeedback(services, db, {
          kind: "satisfaction",
          conversationId: conversation.id,
          score,
          source: "widget",
        });
        return surveyRecord(recorded.survey);
      },
    },
  ];
}
