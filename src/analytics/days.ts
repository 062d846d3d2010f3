/**
 * The analytics figures per UTC day and channel, computed from the raw tables (README, Analytics, defines each):
 * what the rollup tables hold for a whole day (src/analytics/rollups.ts recomputes them), and what a report reads
 * live for the partial days at either end of its window. One query per figure serves both, so that a figure is
 * the same from the rollups as from the raw rows. Raw SQL: every query filters its tenant itself.
 */
export interface Figure {
  /** The rollup table. */
  table: string;
  /**
   * Whether the rollup also holds the day's figures over all channels, under channel '*': a report of all channels
   * then reads one row per day and dimension instead of one per channel too.
   */
  allChannels: boolean;
  /** Its columns after tenant_id, in the order `daily` selects them: day, channel, then dimensions and values. */
  columns: string[];
  /** The figure's rows per day of `[from, to)`; its arguments are SQL placeholders ($n), channel null for all. */
  daily(p: Placeholders): string;
}

export interface Placeholders {
  tenant: string;
  from: string;
  to: string;
  channel: string | null;
  /**
   * Whether rows need their channel: the rollups' rows do; a report's live rows of all channels do not, and then
   * messages and escalations are not joined to their conversations (a join the planner makes with a scan of all of
   * the tenant's conversations).
   */
  byChannel: boolean;
}

/**
 * Keeps `alias`'s rows of one channel's conversations: a lookup of each row's conversation by its key (the
 * subquery with OFFSET 0 stays a lookup), where a join would have the planner scan all the tenant's conversations
 * for the few hours of rows at a window's end.
 */
export const ofOneChannel = (alias: string, channel: string) =>
  `JOIN LATERAL (SELECT c.channel FROM conversations c WHERE c.id = ${alias}.conversation_id OFFSET 0) cc ON cc.channel = ${channel}`;

/** The channel of `alias`'s rows, from their conversation, when they need it or the window is one channel's. */
const channelOf = (alias: string, p: Placeholders) => {
  // A whole day or more of rows for the rollups: one join (a hash of the conversations) beats a lookup per row.
  if (p.byChannel) return { column: "cc.channel", join: `JOIN conversations cc ON cc.id = ${alias}.conversation_id` };
  if (p.channel) return { column: "cc.channel", join: ofOneChannel(alias, p.channel) };
  return { column: "NULL::text", join: "" };
};

/**
 * GROUP BY `keys` and the channel: for the rollups, each channel's rows and the all-channels ones ('*', where the
 * channel is null: `coalesce(channel, '*')` in the select list); a report's live rows, one channel's or none.
 */
const perChannel = (p: Placeholders, keys: string, channel: string) =>
  p.byChannel ? `${keys}, GROUPING SETS ((${channel}), ())` : `${keys}, ${channel}`;
const ofChannel = (column: string, p: Placeholders) => (p.channel ? `AND ${column} = ${p.channel}` : "");

/** New conversations by status now, with how many were ever escalated, or left with a decline. */
export const conversationFigure: Figure = {
  table: "analytics_conversation_days",
  allChannels: false,
  columns: ["day", "channel", "status", "conversations", "escalated", "declined"],
  daily: (p) => `
    SELECT analytics_day(c.created_at) AS day, c.channel, c.status,
           count(*)::int AS conversations, count(*) FILTER (WHERE ever.escalated)::int AS escalated,
           count(*) FILTER (WHERE NOT ever.escalated AND last_answer.grounded = false)::int AS declined
      FROM conversations c
      -- Per conversation (its escalations' index): a few hours of conversations at a window's end do not read
      -- every escalation since.
      CROSS JOIN LATERAL (SELECT EXISTS (SELECT 1 FROM escalations e WHERE e.conversation_id = c.id) AS escalated) ever
      LEFT JOIN LATERAL (SELECT m.grounded FROM messages m
                          WHERE m.conversation_id = c.id AND m.role = 'assistant' AND m.grounded IS NOT NULL
                          ORDER BY m.created_at DESC LIMIT 1) last_answer ON true
     WHERE c.tenant_id = ${p.tenant} AND c.created_at >= ${p.from} AND c.created_at < ${p.to} ${ofChannel("c.channel", p)}
     GROUP BY 1, 2, 3`,
};

/**
 * Messages by role and intent ('' for none), with tokens and grounding of the AI's answers, and of the questions a
 * decline lists (src/ai/local.ts): the declines that listed some, and the answers to one the customer chose
 * (src/pipeline/index.ts marks them `chosen`).
 */
export const messageFigure: Figure = {
  table: "analytics_message_days",
  allChannels: true,
  columns: ["day", "channel", "role", "intent", "messages", "tokens", "grounded", "graded", "offered", "chosen"],
  daily: (p) => `
    SELECT analytics_day(m.created_at) AS day, coalesce(${channelOf("m", p).column}, '*') AS channel, m.role,
           coalesce(m.intent, '') AS intent, count(*)::int AS messages, coalesce(sum(m.tokens_used), 0)::bigint AS tokens,
           count(*) FILTER (WHERE m.grounded)::int AS grounded, count(m.grounded)::int AS graded,
           count(*) FILTER (WHERE m.role = 'assistant' AND m.metadata -> 'suggestions' IS NOT NULL)::int AS offered,
           count(*) FILTER (WHERE m.role = 'assistant' AND m.metadata @> '{"chosen": true}')::int AS chosen
      FROM messages m ${channelOf("m", p).join}
     WHERE m.tenant_id = ${p.tenant} AND m.created_at >= ${p.from} AND m.created_at < ${p.to}
     GROUP BY ${perChannel(p, "1, 3, 4", channelOf("m", p).column)}`,
};

/** Escalations by reason, with those asked for outside the tenant's business hours. */
export const escalationFigure: Figure = {
  table: "analytics_escalation_days",
  allChannels: true,
  columns: ["day", "channel", "reason", "escalations", "out_of_hours"],
  daily: (p) => `
    SELECT analytics_day(e.created_at) AS day, coalesce(${channelOf("e", p).column}, '*') AS channel, e.reason,
           count(*)::int AS escalations, count(*) FILTER (WHERE e.out_of_hours)::int AS out_of_hours
      FROM escalations e ${channelOf("e", p).join}
     WHERE e.tenant_id = ${p.tenant} AND e.created_at >= ${p.from} AND e.created_at < ${p.to}
     GROUP BY ${perChannel(p, "1, 3", channelOf("e", p).column)}`,
};

/** Thumbs given (their current rating: one per message) and satisfaction questions asked, with their answers. */
export const feedbackFigure: Figure = {
  table: "analytics_feedback_days",
  allChannels: false,
  columns: ["day", "channel", "up", "down", "asked", "answered", "score_sum"],
  daily: (p) => `
    SELECT day, channel, sum(up)::int AS up, sum(down)::int AS down, sum(asked)::int AS asked,
           sum(answered)::int AS answered, sum(score_sum)::int AS score_sum
      FROM (SELECT analytics_day(f.created_at) AS day, f.channel, count(*) FILTER (WHERE f.rating = 'up') AS up,
                   count(*) FILTER (WHERE f.rating = 'down') AS down, 0 AS asked, 0 AS answered, 0 AS score_sum
              FROM message_feedback f
             WHERE f.tenant_id = ${p.tenant} AND f.created_at >= ${p.from} AND f.created_at < ${p.to} ${ofChannel("f.channel", p)}
             GROUP BY 1, 2
            UNION ALL
            SELECT analytics_day(s.asked_at), s.channel, 0, 0, count(*), count(s.score), coalesce(sum(s.score), 0)
              FROM satisfaction_surveys s
             WHERE s.tenant_id = ${p.tenant} AND s.asked_at >= ${p.from} AND s.asked_at < ${p.to} ${ofChannel("s.channel", p)}
             GROUP BY 1, 2) thumbs_and_surveys
     GROUP BY 1, 2`,
};

/**
 * The customer questions the AI could not ground an answer for: for each ungrounded AI answer (a partial index),
 * the customer message just before it, normalised (case, spaces, end punctuation), with how often, when last and
 * in which conversation last. Identical texts are counted first and only the distinct ones normalised: far fewer
 * regular expressions to run.
 */
export const questionFigure: Figure = {
  table: "analytics_question_days",
  allChannels: true,
  columns: ["day", "channel", "question", "asked", "last_asked_at", "conversation_id"],
  daily: (p) => `
    SELECT day, coalesce(channel, '*') AS channel,
           regexp_replace(lower(btrim(regexp_replace(content, '\\s+', ' ', 'g'))), '[\\s?!.]+$', '') AS question,
           sum(asked)::int AS asked, max(last_asked_at) AS last_asked_at,
           (array_agg(conversation_id ORDER BY last_asked_at DESC))[1] AS conversation_id
      FROM (SELECT analytics_day(a.created_at) AS day, ${channelOf("a", p).column} AS channel, q.content, count(*) AS asked,
                   max(q.created_at) AS last_asked_at, (array_agg(q.conversation_id ORDER BY q.created_at DESC))[1] AS conversation_id
              FROM messages a ${channelOf("a", p).join}
             CROSS JOIN LATERAL (
                   SELECT content, created_at, conversation_id
                     FROM messages
                    WHERE conversation_id = a.conversation_id AND created_at <= a.created_at AND role = 'customer'
                    ORDER BY created_at DESC
                    LIMIT 1) q
             WHERE a.tenant_id = ${p.tenant} AND a.created_at >= ${p.from} AND a.created_at < ${p.to}
               AND a.role = 'assistant' AND a.grounded = false
             GROUP BY 1, 2, 3) asked
     GROUP BY ${perChannel(p, "1, 3", "asked.channel")}`,
};

export const figures = [conversationFigure, messageFigure, escalationFigure, feedbackFigure, questionFigure];
