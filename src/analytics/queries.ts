import {
  conversationFigure,
  escalationFigure,
  type Figure,
  feedbackFigure,
  messageFigure,
  ofOneChannel,
  questionFigure,
} from "./days.js";
import type { AnalyticsSql } from "./sql.js";

/**
 * The report's figures in SQL (README, Analytics). Whole UTC days of the window come from the rollup tables
 * (src/analytics/rollups.ts keeps them), the partial days at either end from the raw tables (src/analytics/days.ts,
 * the same queries the rollups are computed with), so that a report reads at most a row per day and dimension
 * whatever the window's length. Raw SQL, so the tenant is named here: every query filters `tenant_id = $1`.
 */
export interface Window {
  tenantId: string;
  from: Date;
  to: Date;
  channel: string | null;
  granularity: "day" | "week";
}

const dayMs = 86_400_000;

/**
 * The whole days of `[from, to)`, as `[from, to)` of day starts: empty when the window lies within a day, the
 * window's `to` then standing for both ends so that the live parts before and after them cover it once.
 */
export function wholeDays(w: Pick<Window, "from" | "to">): { from: Date; to: Date } {
  const first = new Date(Math.ceil(w.from.getTime() / dayMs) * dayMs);
  const last = new Date(Math.floor(w.to.getTime() / dayMs) * dayMs);
  return first <= last ? { from: first, to: last } : { from: w.to, to: w.to };
}

/**
 * The window's values as query parameters: tenant $1, from $2, to $3, its whole days $4 to $5 for a query that reads
 * the rollups, then the channel and bucket size as used.
 */
function bind(w: Window, rolledUp = true) {
  const days = wholeDays(w);
  const values: unknown[] = rolledUp ? [w.tenantId, w.from, w.to, days.from, days.to] : [w.tenantId, w.from, w.to];
  const channel = w.channel ? `$${values.push(w.channel)}` : null;
  let size: string | null = null;
  /**
   * The series bucket of a timestamp column. date_bin is plain arithmetic where date_trunc with a time zone
   * converts every row: UTC days, and weeks counted from a Monday (ISO weeks, as date_trunc('week') has them).
   */
  const bucketOf = (column: string) => {
    size ??= `$${values.push(w.granularity === "week" ? "7 days" : "1 day")}`;
    return `date_bin(${size}::interval, ${column}, '2000-01-03T00:00:00Z')`;
  };
  /** Keeps `alias`'s rows of the window's channel, if it has one. */
  const onChannel = (alias: string) => (channel ? ofOneChannel(alias, channel) : "");
  /** The rolled-up rows of the window's channel, or those over all channels if the figure has them. */
  const rolledUpChannel = (figure: Figure) =>
    channel ? `AND channel = ${channel}` : figure.allChannels ? "AND channel = '*'" : "";
  /** A figure's rows per day and channel over the window: rolled-up whole days, and the partial ones live. */
  const source = (figure: Figure) => `(
    SELECT ${figure.columns.join(", ")} FROM ${figure.table}
     WHERE tenant_id = $1 AND day >= $4 AND day < $5 ${rolledUpChannel(figure)}
    UNION ALL ${figure.daily({ tenant: "$1", from: "$2", to: "$4", channel, byChannel: false })}
    UNION ALL ${figure.daily({ tenant: "$1", from: "$5", to: "$3", channel, byChannel: false })}) r`;
  return { values, channel, bucketOf, onChannel, source };
}

export interface ConversationCounts {
  /** New conversations by bucket and channel (the series). */
  byBucket: Array<{ bucket: Date; channel: string; conversations: number }>;
  /** The window's new conversations by status now, with how many were ever escalated, or left with a decline. */
  byStatus: Array<{
    status: string;
    conversations: number;
    escalated: number;
    /** Never escalated, but the AI's last graded answer was a decline ("I'm not sure…"): the customer went unanswered. */
    declined: number;
  }>;
}

/**
 * The window's new conversations, in one statement of two grouping sets: a few rows per bucket and per status,
 * rather than one per bucket, channel and status.
 */
export async function conversationCounts(sql: AnalyticsSql, w: Window): Promise<ConversationCounts> {
  const q = bind(w);
  const bucket = q.bucketOf("r.day");
  const rows = await sql.query<
    ConversationCounts["byStatus"][number] & { bucket: Date | null; channel: string | null; status: string | null }
  >(
    `SELECT ${bucket} AS bucket, r.channel, r.status, sum(r.conversations)::int AS conversations,
            sum(r.escalated)::int AS escalated, sum(r.declined)::int AS declined
       FROM ${q.source(conversationFigure)}
      GROUP BY GROUPING SETS ((${bucket}, r.channel), (r.status))`,
    q.values,
  );
  const counts: ConversationCounts = { byBucket: [], byStatus: [] };
  for (const row of rows) {
    const { bucket: start, channel, status, ...figures } = row;
    if (status === null) counts.byBucket.push({ bucket: start!, channel: channel!, conversations: figures.conversations });
    else counts.byStatus.push({ ...figures, status });
  }
  return counts;
}

export interface MessageCounts {
  /** Messages by bucket and role (the series), with the tokens of the AI's answers. */
  byBucket: Array<{ bucket: Date; role: string; messages: number; tokens: number }>;
  /** The window's messages by role and intent, with tokens and grounding of the AI's answers. */
  byIntent: Array<{
    role: string;
    intent: string | null;
    messages: number;
    tokens: number;
    grounded: number;
    graded: number;
    offered: number;
    chosen: number;
  }>;
}

/** The window's messages, in one statement of two grouping sets (as conversationCounts). */
export async function messageCounts(sql: AnalyticsSql, w: Window): Promise<MessageCounts> {
  const q = bind(w);
  const bucket = q.bucketOf("r.day");
  const rows = await sql.query<MessageCounts["byIntent"][number] & { bucket: Date | null }>(
    `SELECT ${bucket} AS bucket, r.role, nullif(r.intent, '') AS intent,
            sum(r.messages)::int AS messages, sum(r.tokens)::float8 AS tokens,
            sum(r.grounded)::int AS grounded, sum(r.graded)::int AS graded,
            sum(r.offered)::int AS offered, sum(r.chosen)::int AS chosen
       FROM ${q.source(messageFigure)}
      GROUP BY GROUPING SETS ((${bucket}, r.role), (r.role, nullif(r.intent, '')))`,
    q.values,
  );
  const counts: MessageCounts = { byBucket: [], byIntent: [] };
  for (const row of rows) {
    if (row.bucket === null) counts.byIntent.push(row);
    else counts.byBucket.push({ bucket: row.bucket, role: row.role, messages: row.messages, tokens: row.tokens });
  }
  return counts;
}

export interface EscalationRow {
  bucket: Date;
  reason: string;
  escalations: number;
  /** Those asked for outside the tenant's business hours. */
  out_of_hours: number;
}

export function escalationCounts(sql: AnalyticsSql, w: Window): Promise<EscalationRow[]> {
  const q = bind(w);
  return sql.query<EscalationRow>(
    `SELECT ${q.bucketOf("r.day")} AS bucket, r.reason, sum(r.escalations)::int AS escalations,
            sum(r.out_of_hours)::int AS out_of_hours
       FROM ${q.source(escalationFigure)}
      GROUP BY 1, 2`,
    q.values,
  );
}

export interface FeedbackRow {
  channel: string;
  /** Thumbs given in the window (their current rating: one per message). */
  up: number;
  down: number;
  /** Satisfaction questions asked in the window, with their answers. */
  asked: number;
  answered: number;
  score_sum: number;
}

/** Thumbs and satisfaction surveys of the window, by channel. */
export function feedbackCounts(sql: AnalyticsSql, w: Window): Promise<FeedbackRow[]> {
  const q = bind(w);
  return sql.query<FeedbackRow>(
    `SELECT r.channel, sum(r.up)::int AS up, sum(r.down)::int AS down, sum(r.asked)::int AS asked,
            sum(r.answered)::int AS answered, sum(r.score_sum)::int AS score_sum
       FROM ${q.source(feedbackFigure)}
      GROUP BY 1`,
    q.values,
  );
}

export interface HumanTimes {
  responded: number;
  response_p50: number | null;
  response_p90: number | null;
  resolved: number;
  resolution_p50: number | null;
  resolution_p90: number | null;
}

/**
 * Seconds from escalation to an agent's first reply, and to resolution, of the window's escalations. From the
 * escalations themselves: an interpolated percentile needs every value, which day rows cannot sum.
 */
export async function humanTimes(sql: AnalyticsSql, w: Window): Promise<HumanTimes> {
  const q = bind(w, false);
  const seconds = (end: string) => `extract(epoch FROM e.${end} - e.created_at)::float8`;
  const [row] = await sql.query<HumanTimes>(
    `SELECT count(e.first_response_at)::int AS responded,
            percentile_cont(0.5) WITHIN GROUP (ORDER BY ${seconds("first_response_at")}) AS response_p50,
            percentile_cont(0.9) WITHIN GROUP (ORDER BY ${seconds("first_response_at")}) AS response_p90,
            count(e.resolved_at)::int AS resolved,
            percentile_cont(0.5) WITHIN GROUP (ORDER BY ${seconds("resolved_at")}) AS resolution_p50,
            percentile_cont(0.9) WITHIN GROUP (ORDER BY ${seconds("resolved_at")}) AS resolution_p90
       FROM escalations e ${q.onChannel("e")}
      WHERE e.tenant_id = $1 AND e.created_at >= $2 AND e.created_at < $3`,
    q.values,
  );
  return row!;
}

export interface UnansweredRow {
  question: string;
  asked: number;
  last_asked_at: Date;
  conversation_id: string;
}

/** The customer questions the AI could not ground an answer for, most asked first (src/analytics/days.ts). */
export function unansweredQuestions(sql: AnalyticsSql, w: Window, limit: number): Promise<UnansweredRow[]> {
  const q = bind(w);
  return sql.query<UnansweredRow>(
    `SELECT r.question, sum(r.asked)::int AS asked, max(r.last_asked_at) AS last_asked_at,
            (array_agg(r.conversation_id ORDER BY r.last_asked_at DESC))[1] AS conversation_id
       FROM ${q.source(questionFigure)}
      GROUP BY 1
      ORDER BY asked DESC, last_asked_at DESC
      LIMIT ${Math.trunc(limit)}`,
    q.values,
  );
}
