import type { AnalyticsSql } from "./sql.js";

/**
 * The analytics figures in SQL (README, Analytics). Each query reads one index range of the tenant's window:
 * messages and conversations from covering indexes (no table rows read without a channel filter), escalations
 * from their tenant and time index. Raw SQL, so the tenant is named here: every query filters `tenant_id = $1`.
 */
export interface Window {
  tenantId: string;
  from: Date;
  to: Date;
  channel: string | null;
  granularity: "day" | "week";
}

/** The window's values as query parameters: tenant $1, from $2, to $3, then the channel and bucket size as used. */
function bind(w: Window) {
  const values: unknown[] = [w.tenantId, w.from, w.to];
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
  /** Joins the conversation of `alias`'s rows when the window is one channel's. */
  const onChannel = (alias: string) =>
    channel ? `JOIN conversations cc ON cc.id = ${alias}.conversation_id AND cc.channel = ${channel}` : "";
  return { values, channel, bucketOf, onChannel };
}

export interface ConversationRow {
  bucket: Date;
  channel: string;
  status: string;
  conversations: number;
  escalated: number;
  /** Never escalated, but the AI's last graded answer was a decline ("I'm not sure…"): the customer went unanswered. */
  declined: number;
}

/** New conversations by bucket, channel and status, with how many were ever escalated, or left with a decline. */
export function conversationCounts(sql: AnalyticsSql, w: Window): Promise<ConversationRow[]> {
  const q = bind(w);
  return sql.query<ConversationRow>(
    `SELECT ${q.bucketOf("c.created_at")} AS bucket, c.channel, c.status,
            count(*)::int AS conversations, count(e.conversation_id)::int AS escalated,
            count(*) FILTER (WHERE e.conversation_id IS NULL AND last_answer.grounded = false)::int AS declined
       FROM conversations c
       -- A conversation's escalations come after it started: those of the window's conversations are in the window's range onwards.
       LEFT JOIN (SELECT DISTINCT conversation_id FROM escalations WHERE tenant_id = $1 AND created_at >= $2) e
              ON e.conversation_id = c.id
       LEFT JOIN LATERAL (SELECT m.grounded FROM messages m
                           WHERE m.conversation_id = c.id AND m.role = 'assistant' AND m.grounded IS NOT NULL
                           ORDER BY m.created_at DESC LIMIT 1) last_answer ON true
      WHERE c.tenant_id = $1 AND c.created_at >= $2 AND c.created_at < $3 ${q.channel ? `AND c.channel = ${q.channel}` : ""}
      GROUP BY 1, 2, 3`,
    q.values,
  );
}

export interface MessageRow {
  bucket: Date;
  role: string;
  intent: string | null;
  messages: number;
  tokens: number;
  grounded: number;
  graded: number;
}

/**
 * Messages by bucket, role and intent, with tokens and grounding of the AI's answers. Grouping by the columns
 * themselves (not an expression of them) lets the planner use their statistics and aggregate in a hash table.
 */
export function messageCounts(sql: AnalyticsSql, w: Window): Promise<MessageRow[]> {
  const q = bind(w);
  return sql.query<MessageRow>(
    `SELECT ${q.bucketOf("m.created_at")} AS bucket, m.role,
            m.intent,
            count(*)::int AS messages, coalesce(sum(m.tokens_used), 0)::float8 AS tokens,
            count(*) FILTER (WHERE m.grounded)::int AS grounded, count(m.grounded)::int AS graded
       FROM messages m ${q.onChannel("m")}
      WHERE m.tenant_id = $1 AND m.created_at >= $2 AND m.created_at < $3
      GROUP BY 1, 2, 3`,
    q.values,
  );
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
    `SELECT ${q.bucketOf("e.created_at")} AS bucket, e.reason, count(*)::int AS escalations,
            count(*) FILTER (WHERE e.out_of_hours)::int AS out_of_hours
       FROM escalations e ${q.onChannel("e")}
      WHERE e.tenant_id = $1 AND e.created_at >= $2 AND e.created_at < $3
      GROUP BY 1, 2`,
    q.values,
  );
}

export interface FeedbackRow {
  channel: string;
  up: number;
  down: number;
}

/** Thumbs given in the window (their current rating: one per message), by channel. */
export function feedbackCounts(sql: AnalyticsSql, w: Window): Promise<FeedbackRow[]> {
  const q = bind(w);
  return sql.query<FeedbackRow>(
    `SELECT f.channel, count(*) FILTER (WHERE f.rating = 'up')::int AS up, count(*) FILTER (WHERE f.rating = 'down')::int AS down
       FROM message_feedback f
      WHERE f.tenant_id = $1 AND f.created_at >= $2 AND f.created_at < $3 ${q.channel ? `AND f.channel = ${q.channel}` : ""}
      GROUP BY 1`,
    q.values,
  );
}

export interface SurveyRow {
  channel: string;
  asked: number;
  answered: number;
  score_sum: number;
}

/** Satisfaction questions asked in the window, by channel, with their answers. */
export function surveyCounts(sql: AnalyticsSql, w: Window): Promise<SurveyRow[]> {
  const q = bind(w);
  return sql.query<SurveyRow>(
    `SELECT s.channel, count(*)::int AS asked, count(s.score)::int AS answered, coalesce(sum(s.score), 0)::int AS score_sum
       FROM satisfaction_surveys s
      WHERE s.tenant_id = $1 AND s.asked_at >= $2 AND s.asked_at < $3 ${q.channel ? `AND s.channel = ${q.channel}` : ""}
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

/** Seconds from escalation to an agent's first reply, and to resolution, of the window's escalations. */
export async function humanTimes(sql: AnalyticsSql, w: Window): Promise<HumanTimes> {
  const q = bind(w);
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

/**
 * The customer questions the AI could not ground an answer for, most asked first: for each ungrounded AI answer
 * (a partial index), the customer message just before it. Identical texts are counted first and only the
 * distinct ones normalised (case, spaces, end punctuation) and merged: far fewer regular expressions to run.
 */
export function unansweredQuestions(sql: AnalyticsSql, w: Window, limit: number): Promise<UnansweredRow[]> {
  const q = bind(w);
  return sql.query<UnansweredRow>(
    `WITH asked AS (
       SELECT p.content, count(*) AS asked, max(p.created_at) AS last_asked_at,
              (array_agg(p.conversation_id ORDER BY p.created_at DESC))[1] AS conversation_id
         FROM messages a ${q.onChannel("a")}
        CROSS JOIN LATERAL (
              SELECT content, created_at, conversation_id
                FROM messages
               WHERE conversation_id = a.conversation_id AND created_at <= a.created_at AND role = 'customer'
               ORDER BY created_at DESC
               LIMIT 1) p
        WHERE a.tenant_id = $1 AND a.created_at >= $2 AND a.created_at < $3 AND a.role = 'assistant' AND a.grounded = false
        GROUP BY p.content)
     SELECT regexp_replace(lower(btrim(regexp_replace(content, '\\s+', ' ', 'g'))), '[\\s?!.]+$', '') AS question,
            sum(asked)::int AS asked, max(last_asked_at) AS last_asked_at,
            (array_agg(conversation_id ORDER BY last_asked_at DESC))[1] AS conversation_id
       FROM asked
      GROUP BY 1
      ORDER BY asked DESC, last_asked_at DESC
      LIMIT ${Math.trunc(limit)}`,
    q.values,
  );
}
