import { z } from "zod";
import {
  type AnalyticsReport,
  analyticsReport,
  type Bucket,
  type Count,
  type Durations,
  type FeedbackFigures,
} from "../../analytics/report.js";
import { channelNames } from "../../channels/names.js";
import { builder } from "../builder.js";
import { parseInput } from "../validate.js";
import { ChannelEnum } from "./conversations.js";

const dayMs = 24 * 3600_000;
const maxWindowDays = 366;

const GranularityEnum = builder.enumType("Granularity", { values: ["day", "week"] as const });

const CountRef = builder.objectRef<Count>("AnalyticsCount").implement({
  fields: (t) => ({ key: t.exposeString("key"), count: t.exposeInt("count") }),
});

const DurationsRef = builder.objectRef<Durations>("Durations").implement({
  description: "Seconds, over `count` escalations",
  fields: (t) => ({
    count: t.exposeInt("count"),
    medianSeconds: t.exposeFloat("medianSeconds", { nullable: true }),
    p90Seconds: t.exposeFloat("p90Seconds", { nullable: true }),
  }),
});

const BucketRef = builder.objectRef<Bucket>("AnalyticsBucket").implement({
  fields: (t) => ({
    start: t.expose("start", { type: "DateTime" }),
    conversations: t.exposeInt("conversations"),
    conversationsByChannel: t.field({
      type: [CountRef],
      description: "The bucket's new conversations by channel, most first",
      resolve: (b) => b.conversationsByChannel,
    }),
    escalations: t.exposeInt("escalations"),
    customerMessages: t.exposeInt("customerMessages"),
    aiMessages: t.exposeInt("aiMessages"),
    agentMessages: t.exposeInt("agentMessages"),
    tokensUsed: t.exposeFloat("tokensUsed"),
  }),
});

type Section<K extends keyof AnalyticsReport> = AnalyticsReport[K];

const ConversationFigures = builder.objectRef<Section<"conversations">>("ConversationFigures").implement({
  fields: (t) => ({
    total: t.exposeInt("total", { description: "Conversations started in the window" }),
    byChannel: t.field({ type: [CountRef], resolve: (c) => c.byChannel }),
    byStatus: t.field({ type: [CountRef], description: "Their status now", resolve: (c) => c.byStatus }),
  }),
});

const MessageFigures = builder.objectRef<Section<"messages">>("MessageFigures").implement({
  fields: (t) => ({
    total: t.exposeInt("total"),
    customer: t.exposeInt("customer"),
    ai: t.exposeInt("ai", { description: "The AI's messages, hand-off notices included" }),
    agent: t.exposeInt("agent"),
  }),
});

const EscalationFigures = builder.objectRef<Section<"escalations">>("EscalationFigures").implement({
  fields: (t) => ({
    total: t.exposeInt("total", { description: "Escalations created in the window" }),
    byReason: t.field({ type: [CountRef], resolve: (e) => e.byReason }),
    outOfHours: t.exposeInt("outOfHours", {
      description: "Those asked for outside the tenant's business hours (queued while the AI kept answering)",
    }),
  }),
});

const Coverage = builder.objectRef<Section<"knowledgeCoverage">>("KnowledgeCoverage").implement({
  fields: (t) => ({
    answers: t.exposeInt("answers", { description: "AI answers graded for grounding" }),
    grounded: t.exposeInt("grounded", { description: "Those grounded in knowledge above the relevance threshold" }),
    rate: t.exposeFloat("rate", { nullable: true }),
  }),
});

const ListedQuestions = builder.objectRef<Section<"listedQuestions">>("ListedQuestionFigures").implement({
  description: "The FAQ questions the AI lists when it declines, for the customer to choose from",
  fields: (t) => ({
    offered: t.exposeInt("offered", { description: "AI declines that listed questions the customer may have meant" }),
    chosen: t.exposeInt("chosen", {
      description: "AI answers to a question the customer chose from such a list (by its number or a button)",
    }),
    rate: t.exposeFloat("rate", { nullable: true, description: "chosen ÷ offered" }),
  }),
});

const Unanswered = builder.objectRef<Section<"unansweredQuestions">[number]>("UnansweredQuestion").implement({
  fields: (t) => ({
    question: t.exposeString("question", { description: "Lower-cased, spaces collapsed, end punctuation dropped" }),
    count: t.exposeInt("count"),
    lastAskedAt: t.expose("lastAskedAt", { type: "DateTime" }),
    conversationId: t.exposeID("conversationId", { description: "The latest conversation that asked it" }),
  }),
});

const Satisfaction = builder.objectRef<FeedbackFigures["satisfaction"]>("SatisfactionFigures").implement({
  fields: (t) => ({
    asked: t.exposeInt("asked", { description: "Satisfaction questions asked in the window (at resolution)" }),
    answered: t.exposeInt("answered"),
    average: t.exposeFloat("average", { nullable: true, description: "Mean score (1 to 5) of the answered ones" }),
  }),
});

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

/** The figures a channel's feedback and the whole window's share. */
const feedbackFields = <T extends FeedbackFigures>(t: PothosSchemaTypes.ObjectFieldBuilder<Types, T>) => ({
  up: t.int({ description: "Thumbs up given in the window on the AI's replies", resolve: (f) => f.up }),
  down: t.int({ resolve: (f) => f.down }),
  rate: t.float({ nullable: true, description: "up ÷ (up + down)", resolve: (f) => f.rate }),
  satisfaction: t.field({ type: Satisfaction, resolve: (f) => f.satisfaction }),
});

const ChannelFeedback = builder.objectRef<FeedbackFigures & { channel: string }>("ChannelFeedbackFigures").implement({
  fields: (t) => ({ channel: t.exposeString("channel"), ...feedbackFields(t) }),
});

const Feedback = builder.objectRef<AnalyticsReport["feedback"]>("FeedbackFigures").implement({
  description: "Customers' thumbs on the AI's replies and satisfaction scores at resolution",
  fields: (t) => ({ ...feedbackFields(t), byChannel: t.field({ type: [ChannelFeedback], resolve: (f) => f.byChannel }) }),
});

const Analytics = builder.objectRef<AnalyticsReport>("Analytics").implement({
  description: "A tenant's figures for a window (README, Analytics, defines each)",
  fields: (t) => ({
    from: t.expose("from", { type: "DateTime" }),
    to: t.expose("to", { type: "DateTime" }),
    channel: t.exposeString("channel", { nullable: true }),
    granularity: t.field({ type: GranularityEnum, resolve: (a) => a.granularity }),
    conversations: t.field({ type: ConversationFigures, resolve: (a) => a.conversations }),
    messages: t.field({ type: MessageFigures, resolve: (a) => a.messages }),
    aiResolved: t.exposeInt("aiResolved", { description: "Conversations started in the window and never escalated" }),
    aiResolutionRate: t.exposeFloat("aiResolutionRate", { nullable: true }),
    escalated: t.exposeInt("escalated", { description: "Conversations started in the window and escalated" }),
    escalationRate: t.exposeFloat("escalationRate", { nullable: true }),
    escalations: t.field({ type: EscalationFigures, resolve: (a) => a.escalations }),
    firstResponseTime: t.field({ type: DurationsRef, resolve: (a) => a.firstResponseTime }),
    resolutionTime: t.field({ type: DurationsRef, resolve: (a) => a.resolutionTime }),
    topIntents: t.field({ type: [CountRef], resolve: (a) => a.topIntents }),
    knowledgeCoverage: t.field({ type: Coverage, resolve: (a) => a.knowledgeCoverage }),
    listedQuestions: t.field({ type: ListedQuestions, resolve: (a) => a.listedQuestions }),
    unansweredQuestions: t.field({ type: [Unanswered], resolve: (a) => a.unansweredQuestions }),
    tokensUsed: t.exposeFloat("tokensUsed"),
    feedback: t.field({ type: Feedback, resolve: (a) => a.feedback }),
    series: t.field({ type: [BucketRef], resolve: (a) => a.series }),
  }),
});

const input = z
  .object({
    from: z.date().optional(),
    to: z.date().optional(),
    channel: z.enum(channelNames).optional(),
    granularity: z.enum(["day", "week"]).default("day"),
  })
  .transform((v) => {
    const to = v.to ?? new Date();
    return { ...v, to, from: v.from ?? new Date(to.getTime() - 30 * dayMs) };
  })
  .refine((v) => v.from < v.to, { message: "must be before `to`", path: ["from"] })
  .refine((v) => v.to.getTime() - v.from.getTime() <= maxWindowDays * dayMs, {
    message: `the window is at most ${maxWindowDays} days`,
    path: ["from"],
  });

builder.queryField("analytics", (t) =>
  t.field({
    type: Analytics,
    description: "Figures for [from, to) (default the last 30 days), optionally of one channel, with a day or week series",
    authScopes: { permission: "read" },
    args: {
      from: t.arg({ type: "DateTime", required: false }),
      to: t.arg({ type: "DateTime", required: false }),
      channel: t.arg({ type: ChannelEnum, required: false }),
      granularity: t.arg({ type: GranularityEnum, required: false, description: "day (default) or week" }),
    },
    resolve: async (_root, args, ctx) => {
      const window = parseInput(input, args);
      return analyticsReport(ctx.services, { ...window, tenantId: ctx.tenantId, channel: window.channel ?? null });
    },
  }),
);
