import { z } from "zod";
import { ratings, recordFeedback } from "../../feedback/record.js";
import { builder } from "../builder.js";
import { parseInput } from "../validate.js";

const RatingEnum = builder.enumType("Rating", { values: ratings });

export const MessageFeedback = builder.prismaObject("MessageFeedback", {
  description: "A customer's thumbs up or down on one of the AI's replies (one per message; given again, it is changed)",
  fields: (t) => ({
    messageId: t.exposeID("messageId"),
    conversationId: t.exposeID("conversationId"),
    channel: t.exposeString("channel"),
    rating: t.field({ type: RatingEnum, resolve: (f) => f.rating as (typeof ratings)[number] }),
    comment: t.exposeString("comment", { nullable: true }),
    source: t.exposeString("source", { description: "widget (the visitor's button), api (an integrator's call)" }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
  }),
});

export const SatisfactionSurvey = builder.prismaObject("SatisfactionSurvey", {
  description: "The satisfaction question asked when a conversation is resolved, and its score (1 to 5)",
  fields: (t) => ({
    id: t.exposeID("id"),
    conversationId: t.exposeID("conversationId"),
    channel: t.exposeString("channel"),
    score: t.exposeInt("score", { nullable: true }),
    askedAt: t.expose("askedAt", { type: "DateTime" }),
    expiresAt: t.expose("expiresAt", { type: "DateTime", description: "Answers after this are not taken" }),
    answeredAt: t.expose("answeredAt", { type: "DateTime", nullable: true }),
  }),
});

builder.prismaObjectField("Message", "feedback", (t) =>
  t.relation("feedback", { nullable: true, description: "The customer's rating of this AI reply" }),
);

builder.prismaObjectField("Conversation", "surveys", (t) =>
  t.relation("surveys", {
    description: "Satisfaction questions asked at its resolutions, newest first",
    query: { orderBy: { askedAt: "desc" } },
  }),
);

const ratingInput = z.object({
  messageId: z.string().min(1).max(100),
  rating: z.enum(ratings),
  comment: z.string().trim().min(1).max(1_000).optional(),
});

builder.mutationField("rateMessage", (t) =>
  t.field({
    type: MessageFeedback,
    description: "Records a customer's thumbs up or down on an AI reply, for channels without buttons of their own",
    authScopes: { permission: "converse" },
    audit: { exempt: "a customer's feedback: the feedback.given event and analytics record it" },
    args: {
      messageId: t.arg.id({ required: true }),
      rating: t.arg({ type: RatingEnum, required: true }),
      comment: t.arg.string({ required: false, description: "Up to 1,000 characters" }),
    },
    resolve: async (_root, args, ctx) => {
      const input = parseInput(ratingInput, args);
      return (await recordFeedback(ctx.services, ctx.db, { kind: "rating", ...input, source: "api" })).feedback;
    },
  }),
);

const scoreInput = z.object({
  conversationId: z.string().min(1).max(100),
  score: z.number().int().min(1, "from 1").max(5, "to 5"),
});

builder.mutationField("rateConversation", (t) =>
  t.field({
    type: SatisfactionSurvey,
    description: "Records the satisfaction score (1 to 5) of a resolved conversation while its question is open",
    authScopes: { permission: "converse" },
    audit: { exempt: "a customer's feedback: the feedback.given event and analytics record it" },
    args: { conversationId: t.arg.id({ required: true }), score: t.arg.int({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const input = parseInput(scoreInput, args);
      return (await recordFeedback(ctx.services, ctx.db, { kind: "satisfaction", ...input, source: "api" })).survey;
    },
  }),
);
