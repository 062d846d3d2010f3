import type { Services } from "../services.js";
import {
  conversationCounts,
  escalationCounts,
  type FeedbackRow,
  feedbackCounts,
  humanTimes,
  messageCounts,
  unansweredQuestions,
  type Window,
  wholeDays,
} from "./queries.js";
import { refreshRollups } from "./rollups.js";
import { analyticsSql } from "./sql.js";

export type { Window } from "./queries.js";

export interface Count {
  key: string;
  count: number;
}

export interface Durations {
  /** How many escalations the figures are over. */
  count: number;
  medianSeconds: number | null;
  p90Seconds: number | null;
}

export interface Bucket {
  start: Date;
  conversations: number;
  /** The bucket's new conversations by channel (the dashboard's stacked chart). */
  conversationsByChannel: Count[];
  escalations: number;
  customerMessages: number;
  aiMessages: number;
  agentMessages: number;
  tokensUsed: number;
}

export interface FeedbackFigures {
  up: number;
  down: number;
  /** up ÷ (up + down); null without any. */
  rate: number | null;
  satisfaction: { asked: number; answered: number; average: number | null };
}

export interface AnalyticsReport {
  from: Date;
  to: Date;
  channel: string | null;
  granularity: Window["granularity"];
  conversations: { total: number; byChannel: Count[]; byStatus: Count[] };
  messages: { total: number; customer: number; ai: number; agent: number };
  aiResolved: number;
  aiResolutionRate: number | null;
  escalated: number;
  escalationRate: number | null;
  escalations: { total: number; byReason: Count[]; outOfHours: number };
  firstResponseTime: Durations;
  resolutionTime: Durations;
  topIntents: Count[];
  knowledgeCoverage: { answers: number; grounded: number; rate: number | null };
  /**
   * The questions a decline lists: `offered`, the AI's declines that listed some; `chosen`, its answers to a question
   * the customer chose from such a list (its number, or a button); `rate`, chosen ÷ offered.
   */
  listedQuestions: { offered: number; chosen: number; rate: number | null };
  unansweredQuestions: Array<{ question: string; count: number; lastAskedAt: Date; conversationId: string }>;
  tokensUsed: number;
  feedback: FeedbackFigures & { byChannel: Array<FeedbackFigures & { channel: string }> };
  series: Bucket[];
}

const topIntentCount = 10;
const unansweredCount = 20;

/** Sums `value` of rows by `key`, largest first (ties by key, so the order is stable). */
function tally<R>(rows: R[], key: (row: R) => string | null, value: (row: R) => number): Count[] {
  const sums = new Map<string, number>();
  for (const row of rows) {
    const k = key(row);
    if (k !== null) sums.set(k, (sums.get(k) ?? 0) + value(row));
  }
  return [...sums].map(([k, count]) => ({ key: k, count })).sort((a, b) => b.count - a.count || a.key.localeCompare(b.key));
}

const sum = <R>(rows: R[], value: (row: R) => number) => rows.reduce((total, row) => total + value(row), 0);
const messagesOf = (rows: Array<{ role: string; messages: number }>, role: string) =>
  sum(
    rows.filter((m) => m.role === role),
    (m) => m.messages,
  );
const ratio = (part: number, whole: number) => (whole ? part / whole : null);

function feedbackFigures(rows: FeedbackRow[]): FeedbackFigures {
  const up = sum(rows, (f) => f.up);
  const down = sum(rows, (f) => f.down);
  const answered = sum(rows, (s) => s.answered);
  return {
    up,
    down,
    rate: ratio(up, up + down),
    satisfaction: {
      asked: sum(rows, (s) => s.asked),
      answered,
      average: ratio(
        sum(rows, (s) => s.score_sum),
        answered,
      ),
    },
  };
}

/** The feedback figures of the window, and of each channel that has any (a row per channel). */
function feedbackByChannel(rows: FeedbackRow[]): AnalyticsReport["feedback"] {
  return {
    ...feedbackFigures(rows),
    byChannel: rows
      .map((row) => ({ channel: row.channel, ...feedbackFigures([row]) }))
      .sort((a, b) => a.channel.localeCompare(b.channel)),
  };
}

/** Every bucket of the window, empty ones included, from the one `from` falls in. */
function bucketStarts(w: Window): Date[] {
  const first = new Date(Date.UTC(w.from.getUTCFullYear(), w.from.getUTCMonth(), w.from.getUTCDate()));
  // ISO weeks start on Monday, as PostgreSQL's date_trunc('week') has them.
  if (w.granularity === "week") first.setUTCDate(first.getUTCDate() - ((first.getUTCDay() + 6) % 7));
  const step = w.granularity === "week" ? 7 : 1;
  const starts: Date[] = [];
  for (const day = first; day < w.to; day.setUTCDate(day.getUTCDate() + step)) starts.push(new Date(day));
  return starts;
}

/** The figures of one tenant's window (README, Analytics, defines each). */
export async function analyticsReport(services: Services, w: Window): Promise<AnalyticsReport> {
  const sql = analyticsSql(services);
  await refreshRollups(services, w.tenantId, wholeDays(w));
  const [conversations, messages, escalations, times, unanswered, feedback] = await Promise.all([
    conversationCounts(sql, w),
    messageCounts(sql, w),
    escalationCounts(sql, w),
    humanTimes(sql, w),
    unansweredQuestions(sql, w, unansweredCount),
    feedbackCounts(sql, w),
  ]);
  const total = sum(conversations.byStatus, (c) => c.conversations);
  const escalated = sum(conversations.byStatus, (c) => c.escalated);
  const declined = sum(conversations.byStatus, (c) => c.declined);
  const answers = sum(messages.byIntent, (m) => m.graded);
  const grounded = sum(messages.byIntent, (m) => m.grounded);
  const offered = sum(messages.byIntent, (m) => m.offered);
  const chosen = sum(messages.byIntent, (m) => m.chosen);
  const inBucket = <R extends { bucket: Date }>(rows: R[], start: Date) =>
    rows.filter((r) => r.bucket.getTime() === start.getTime());
  return {
    from: w.from,
    to: w.to,
    channel: w.channel,
    granularity: w.granularity,
    conversations: {
      total,
      byChannel: tally(
        conversations.byBucket,
        (c) => c.channel,
        (c) => c.conversations,
      ),
      byStatus: tally(
        conversations.byStatus,
        (c) => c.status,
        (c) => c.conversations,
      ),
    },
    messages: {
      total: sum(messages.byIntent, (m) => m.messages),
      customer: messagesOf(messages.byIntent, "customer"),
      ai: messagesOf(messages.byIntent, "assistant"),
      agent: messagesOf(messages.byIntent, "agent"),
    },
    aiResolved: total - escalated - declined,
    aiResolutionRate: ratio(total - escalated - declined, total),
    escalated,
    escalationRate: ratio(escalated, total),
    escalations: {
      total: sum(escalations, (e) => e.escalations),
      byReason: tally(
        escalations,
        (e) => e.reason,
        (e) => e.escalations,
      ),
      outOfHours: sum(escalations, (e) => e.out_of_hours),
    },
    firstResponseTime: { count: times.responded, medianSeconds: times.response_p50, p90Seconds: times.response_p90 },
    resolutionTime: { count: times.resolved, medianSeconds: times.resolution_p50, p90Seconds: times.resolution_p90 },
    topIntents: tally(
      messages.byIntent,
      (m) => (m.role === "customer" ? m.intent : null),
      (m) => m.messages,
    ).slice(0, topIntentCount),
    knowledgeCoverage: { answers, grounded, rate: ratio(grounded, answers) },
    listedQuestions: { offered, chosen, rate: ratio(chosen, offered) },
    unansweredQuestions: unanswered.map((u) => ({
      question: u.question,
      count: u.asked,
      lastAskedAt: u.last_asked_at,
      conversationId: u.conversation_id,
    })),
    tokensUsed: sum(messages.byIntent, (m) => m.tokens),
    feedback: feedbackByChannel(feedback),
    series: bucketStarts(w).map((start) => {
      const bucketMessages = inBucket(messages.byBucket, start);
      return {
        start,
        conversations: sum(inBucket(conversations.byBucket, start), (c) => c.conversations),
        conversationsByChannel: tally(
          inBucket(conversations.byBucket, start),
          (c) => c.channel,
          (c) => c.conversations,
        ),
        escalations: sum(inBucket(escalations, start), (e) => e.escalations),
        customerMessages: messagesOf(bucketMessages, "customer"),
        aiMessages: messagesOf(bucketMessages, "assistant"),
        agentMessages: messagesOf(bucketMessages, "agent"),
        tokensUsed: sum(bucketMessages, (m) => m.tokens),
      };
    }),
  };
}
