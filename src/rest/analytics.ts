import { z } from "zod";
import type { Services } from "../services.js";
import { runOperation } from "./execute.js";
import {
  AnalyticsDocument,
  type AnalyticsQuery,
  type ChannelFeedbackFigureFieldsFragment,
  type DurationFieldsFragment,
  type FeedbackFigureFieldsFragment,
} from "./generated.js";
import { type RestRoute, textVariable } from "./route.js";

const Counts = z.record(z.string(), z.number().int());
const Durations = z.object({
  count: z.number().int(),
  median_seconds: z.number().nullable(),
  p90_seconds: z.number().nullable(),
});

const FeedbackFigures = z.object({
  up: z.number().int(),
  down: z.number().int(),
  rate: z.number().nullable().describe("up ÷ (up + down)"),
  satisfaction: z.object({ asked: z.number().int(), answered: z.number().int(), average: z.number().nullable() }),
});

const AnalyticsRecord = z.object({
  from: z.string(),
  to: z.string(),
  channel: z.string().nullable(),
  granularity: z.enum(["day", "week"]),
  conversations: z.object({ total: z.number().int(), by_channel: Counts, by_status: Counts }),
  messages: z.object({ total: z.number().int(), customer: z.number().int(), ai: z.number().int(), agent: z.number().int() }),
  ai_resolved: z.number().int(),
  ai_resolution_rate: z.number().nullable(),
  escalated: z.number().int(),
  escalation_rate: z.number().nullable(),
  escalations: z.object({ total: z.number().int(), by_reason: Counts, out_of_hours: z.number().int() }),
  first_response_time: Durations,
  resolution_time: Durations,
  top_intents: z.array(z.object({ intent: z.string(), count: z.number().int() })),
  knowledge_coverage: z.object({ answers: z.number().int(), grounded: z.number().int(), rate: z.number().nullable() }),
  listed_questions: z
    .object({ offered: z.number().int(), chosen: z.number().int(), rate: z.number().nullable() })
    .describe("the AI's declines that listed FAQ questions, its answers to one the customer chose, and chosen ÷ offered"),
  unanswered_questions: z.array(
    z.object({ question: z.string(), count: z.number().int(), last_asked_at: z.string(), conversation_id: z.string() }),
  ),
  tokens_used: z.number(),
  feedback: FeedbackFigures.extend({ by_channel: z.record(z.string(), FeedbackFigures) }),
  series: z.array(
    z.object({
      start: z.string(),
      conversations: z.number().int(),
      escalations: z.number().int(),
      messages: z.object({ customer: z.number().int(), ai: z.number().int(), agent: z.number().int() }),
      tokens_used: z.number(),
    }),
  ),
});

const feedbackFigures = (f: FeedbackFigureFieldsFragment | ChannelFeedbackFigureFieldsFragment) => ({
  up: f.up,
  down: f.down,
  rate: f.rate,
  satisfaction: f.satisfaction,
});
const counts = (list: Array<{ key: string; count: number }>) => Object.fromEntries(list.map((c) => [c.key, c.count]));
const durations = (d: DurationFieldsFragment) => ({ count: d.count, median_seconds: d.medianSeconds, p90_seconds: d.p90Seconds });

function record(a: AnalyticsQuery["analytics"]) {
  return {
    from: a.from,
    to: a.to,
    channel: a.channel,
    granularity: a.granularity,
    conversations: {
      total: a.conversations.total,
      by_channel: counts(a.conversations.byChannel),
      by_status: counts(a.conversations.byStatus),
    },
    messages: a.messages,
    ai_resolved: a.aiResolved,
    ai_resolution_rate: a.aiResolutionRate,
    escalated: a.escalated,
    escalation_rate: a.escalationRate,
    escalations: {
      total: a.escalations.total,
      by_reason: counts(a.escalations.byReason),
      out_of_hours: a.escalations.outOfHours,
    },
    first_response_time: durations(a.firstResponseTime),
    resolution_time: durations(a.resolutionTime),
    top_intents: a.topIntents.map((i) => ({ intent: i.key, count: i.count })),
    knowledge_coverage: a.knowledgeCoverage,
    listed_questions: a.listedQuestions,
    unanswered_questions: a.unansweredQuestions.map((u) => ({
      question: u.question,
      count: u.count,
      last_asked_at: u.lastAskedAt,
      conversation_id: u.conversationId,
    })),
    tokens_used: a.tokensUsed,
    feedback: {
      ...feedbackFigures(a.feedback),
      by_channel: Object.fromEntries(a.feedback.byChannel.map((c) => [c.channel, feedbackFigures(c)])),
    },
    series: a.series.map((b) => ({
      start: b.start,
      conversations: b.conversations,
      escalations: b.escalations,
      messages: { customer: b.customerMessages, ai: b.aiMessages, agent: b.agentMessages },
      tokens_used: b.tokensUsed,
    })),
  };
}

export function analyticsRoutes(services: Services): RestRoute[] {
  return [
    {
      method: "get",
      path: "/api/analytics",
      tag: "Analytics",
      summary: "The tenant's figures for [from, to) (default the last 30 days); README, Analytics, defines each",
      query: z.object({
        from: z.string().optional().describe("ISO 8601, inclusive"),
        to: z.string().optional().describe("ISO 8601, exclusive; default now"),
        channel: z.string().optional(),
        granularity: z.enum(["day", "week"]).optional().describe("of the series, default day (UTC; weeks start on Monday)"),
      }),
      response: { status: 200, description: "The figures", schema: AnalyticsRecord },
      errors: [401, 403, 422, 429],
      async handle(req) {
        const q = req.query;
        const { analytics } = await runOperation(services, req, AnalyticsDocument, {
          from: textVariable(q.from),
          to: textVariable(q.to),
          channel: textVariable(q.channel) as never,
          granularity: textVariable(q.granularity) as never,
        });
        return record(analytics);
      },
    },
  ];
}
