-- Analytics rollups (README, Analytics): each tenant's figures per UTC day and channel, so that a report sums at
-- most a day-row per dimension for each day of its window instead of reading every message. A day's rows are
-- always recomputed from the raw tables (src/analytics/rollups.ts), never adjusted: whatever changes a day's
-- figures (a new message, a status change, an escalation resolved later, retention or erasure) only marks the day
-- stale, here in the database so that no write path can forget to, and the day is recomputed before it is read.

-- Append-only marks: a writer never relies on a mark another transaction made (that one may be consumed before the
-- writer commits), and a refresh removes exactly the marks it read, so a mark committed meanwhile stays.
CREATE TABLE "analytics_stale_days" (
    "id" BIGSERIAL NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "day" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "analytics_stale_days_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "analytics_stale_days_tenant_id_day_idx" ON "analytics_stale_days"("tenant_id", "day");

-- Conversations created that day, by their status now; how many were ever escalated, or left with a decline.
CREATE TABLE "analytics_conversation_days" (
    "tenant_id" TEXT NOT NULL,
    "day" TIMESTAMPTZ(3) NOT NULL,
    "channel" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "conversations" INTEGER NOT NULL,
    "escalated" INTEGER NOT NULL,
    "declined" INTEGER NOT NULL,
    CONSTRAINT "analytics_conversation_days_pkey" PRIMARY KEY ("tenant_id", "day", "channel", "status")
);

-- Messages created that day by role and intent ('' for none), with tokens and grounding of the AI's answers.
CREATE TABLE "analytics_message_days" (
    "tenant_id" TEXT NOT NULL,
    "day" TIMESTAMPTZ(3) NOT NULL,
    "channel" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "intent" TEXT NOT NULL,
    "messages" INTEGER NOT NULL,
    "tokens" BIGINT NOT NULL,
    "grounded" INTEGER NOT NULL,
    "graded" INTEGER NOT NULL,
    CONSTRAINT "analytics_message_days_pkey" PRIMARY KEY ("tenant_id", "day", "channel", "role", "intent")
);

-- Escalations created that day by reason.
CREATE TABLE "analytics_escalation_days" (
    "tenant_id" TEXT NOT NULL,
    "day" TIMESTAMPTZ(3) NOT NULL,
    "channel" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "escalations" INTEGER NOT NULL,
    "out_of_hours" INTEGER NOT NULL,
    CONSTRAINT "analytics_escalation_days_pkey" PRIMARY KEY ("tenant_id", "day", "channel", "reason")
);

-- Thumbs given that day (current ratings) and satisfaction questions asked that day.
CREATE TABLE "analytics_feedback_days" (
    "tenant_id" TEXT NOT NULL,
    "day" TIMESTAMPTZ(3) NOT NULL,
    "channel" TEXT NOT NULL,
    "up" INTEGER NOT NULL,
    "down" INTEGER NOT NULL,
    "asked" INTEGER NOT NULL,
    "answered" INTEGER NOT NULL,
    "score_sum" INTEGER NOT NULL,
    CONSTRAINT "analytics_feedback_days_pkey" PRIMARY KEY ("tenant_id", "day", "channel")
);

-- The questions (normalised) asked before that day's ungrounded AI answers. Customer text: removed in the same
-- transaction as the messages it came from (analytics_forget_days below).
CREATE TABLE "analytics_question_days" (
    "tenant_id" TEXT NOT NULL,
    "day" TIMESTAMPTZ(3) NOT NULL,
    "channel" TEXT NOT NULL,
    "question" TEXT NOT NULL,
    "asked" INTEGER NOT NULL,
    "last_asked_at" TIMESTAMPTZ(3) NOT NULL,
    "conversation_id" TEXT NOT NULL,
    CONSTRAINT "analytics_question_days_pkey" PRIMARY KEY ("tenant_id", "day", "channel", "question")
);

-- Rollup rows go with their tenant. Marks have no foreign key: deleting a tenant cascades to its conversations,
-- whose triggers mark days after the tenant's row is gone; refreshing a tenant that is gone drops its marks.
ALTER TABLE "analytics_conversation_days" ADD CONSTRAINT "analytics_conversation_days_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "analytics_message_days" ADD CONSTRAINT "analytics_message_days_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "analytics_escalation_days" ADD CONSTRAINT "analytics_escalation_days_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "analytics_feedback_days" ADD CONSTRAINT "analytics_feedback_days_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "analytics_question_days" ADD CONSTRAINT "analytics_question_days_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The UTC day of a timestamp, as the rollups key it (date_bin: arithmetic, no time-zone conversion per row).
CREATE FUNCTION "analytics_day"(at TIMESTAMPTZ) RETURNS TIMESTAMPTZ LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN date_bin('1 day'::interval, at, '2000-01-03T00:00:00Z'::timestamptz);

-- Marks a tenant's days stale. After a DELETE, the days' rows also go at once, in the deleting transaction (the
-- question rows hold customers' words), after any refresh of the tenant in progress has committed (refreshes take
-- the same lock), and the days are rebuilt from what remains when next read.
CREATE FUNCTION "analytics_mark"(tenant TEXT, days TIMESTAMPTZ[], deleted BOOLEAN) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF deleted THEN
    PERFORM pg_advisory_xact_lock(hashtextextended('analytics:' || tenant, 0));
    DELETE FROM analytics_conversation_days WHERE tenant_id = tenant AND day = ANY(days);
    DELETE FROM analytics_message_days WHERE tenant_id = tenant AND day = ANY(days);
    DELETE FROM analytics_escalation_days WHERE tenant_id = tenant AND day = ANY(days);
    DELETE FROM analytics_feedback_days WHERE tenant_id = tenant AND day = ANY(days);
    DELETE FROM analytics_question_days WHERE tenant_id = tenant AND day = ANY(days);
  END IF;
  INSERT INTO analytics_stale_days (tenant_id, day) SELECT tenant, unnest(days);
END;
$$;

-- Inserts and deletes: statement triggers over the statement's rows (transition table "changed"), so that a bulk
-- statement marks each of its days once. A message counts on its own day and, if it is a graded AI answer (the
-- "declined" figure), on its conversation's; an escalation on its own day and its conversation's ("escalated").
CREATE FUNCTION "analytics_mark_messages"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM analytics_mark(tenant_id, array_agg(DISTINCT day), TG_OP = 'DELETE') FROM (
    SELECT m.tenant_id, analytics_day(m.created_at) AS day FROM changed m
    UNION ALL
    SELECT m.tenant_id, analytics_day(c.created_at) FROM changed m JOIN conversations c ON c.id = m.conversation_id
     WHERE m.grounded IS NOT NULL) d
  GROUP BY tenant_id;
  RETURN NULL;
END;
$$;

CREATE FUNCTION "analytics_mark_escalations"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM analytics_mark(tenant_id, array_agg(DISTINCT day), TG_OP = 'DELETE') FROM (
    SELECT e.tenant_id, analytics_day(e.created_at) AS day FROM changed e
    UNION ALL
    SELECT e.tenant_id, analytics_day(c.created_at) FROM changed e JOIN conversations c ON c.id = e.conversation_id) d
  GROUP BY tenant_id;
  RETURN NULL;
END;
$$;

-- A row counted on its own day only (conversations, feedback, surveys). TG_ARGV[0]: the row's day column.
CREATE FUNCTION "analytics_mark_own_day"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('SELECT analytics_mark(tenant_id, array_agg(DISTINCT analytics_day(%I)), $1) FROM changed GROUP BY tenant_id',
                 TG_ARGV[0])
    USING TG_OP = 'DELETE';
  RETURN NULL;
END;
$$;

-- Updates: row triggers whose WHEN compares the counted columns, so that the frequent updates that change none
-- (a conversation's message count, a reply's delivery state) call nothing. TG_ARGV: the row's day column, and
-- whether its conversation's day counts it too.
CREATE FUNCTION "analytics_mark_updated"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  days TIMESTAMPTZ[] := ARRAY[analytics_day((to_jsonb(NEW) ->> TG_ARGV[0])::timestamptz)];
BEGIN
  IF TG_ARGV[1] = 'conversation' THEN
    days := days || (SELECT analytics_day(c.created_at) FROM conversations c WHERE c.id = NEW.conversation_id);
  END IF;
  PERFORM analytics_mark(NEW.tenant_id, days, false);
  RETURN NULL;
END;
$$;

CREATE TRIGGER "messages_analytics_insert" AFTER INSERT ON "messages"
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION analytics_mark_messages();
CREATE TRIGGER "messages_analytics_delete" AFTER DELETE ON "messages"
  REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION analytics_mark_messages();
CREATE TRIGGER "messages_analytics_update" AFTER UPDATE ON "messages" FOR EACH ROW
  WHEN ((OLD.role, OLD.intent, OLD.grounded, OLD.tokens_used) IS DISTINCT FROM (NEW.role, NEW.intent, NEW.grounded, NEW.tokens_used))
  EXECUTE FUNCTION analytics_mark_updated('created_at', 'conversation');

CREATE TRIGGER "escalations_analytics_insert" AFTER INSERT ON "escalations"
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION analytics_mark_escalations();
CREATE TRIGGER "escalations_analytics_delete" AFTER DELETE ON "escalations"
  REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION analytics_mark_escalations();
CREATE TRIGGER "escalations_analytics_update" AFTER UPDATE ON "escalations" FOR EACH ROW
  WHEN ((OLD.reason, OLD.out_of_hours) IS DISTINCT FROM (NEW.reason, NEW.out_of_hours))
  EXECUTE FUNCTION analytics_mark_updated('created_at', 'own');

CREATE TRIGGER "conversations_analytics_insert" AFTER INSERT ON "conversations"
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION analytics_mark_own_day('created_at');
CREATE TRIGGER "conversations_analytics_delete" AFTER DELETE ON "conversations"
  REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION analytics_mark_own_day('created_at');
CREATE TRIGGER "conversations_analytics_update" AFTER UPDATE ON "conversations" FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status)
  EXECUTE FUNCTION analytics_mark_updated('created_at', 'own');

CREATE TRIGGER "message_feedback_analytics_insert" AFTER INSERT ON "message_feedback"
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION analytics_mark_own_day('created_at');
CREATE TRIGGER "message_feedback_analytics_delete" AFTER DELETE ON "message_feedback"
  REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION analytics_mark_own_day('created_at');
CREATE TRIGGER "message_feedback_analytics_update" AFTER UPDATE ON "message_feedback" FOR EACH ROW
  WHEN (OLD.rating IS DISTINCT FROM NEW.rating)
  EXECUTE FUNCTION analytics_mark_updated('created_at', 'own');

CREATE TRIGGER "satisfaction_surveys_analytics_insert" AFTER INSERT ON "satisfaction_surveys"
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION analytics_mark_own_day('asked_at');
CREATE TRIGGER "satisfaction_surveys_analytics_delete" AFTER DELETE ON "satisfaction_surveys"
  REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION analytics_mark_own_day('asked_at');
CREATE TRIGGER "satisfaction_surveys_analytics_update" AFTER UPDATE ON "satisfaction_surveys" FOR EACH ROW
  WHEN (OLD.score IS DISTINCT FROM NEW.score)
  EXECUTE FUNCTION analytics_mark_updated('asked_at', 'own');

-- Backfill: every day with data is stale, and is rolled up when first read (or by the worker's refresh).
INSERT INTO analytics_stale_days (tenant_id, day)
SELECT DISTINCT tenant_id, day FROM (
  SELECT tenant_id, analytics_day(created_at) AS day FROM conversations
  UNION ALL SELECT tenant_id, analytics_day(created_at) FROM messages
  UNION ALL SELECT tenant_id, analytics_day(created_at) FROM escalations
  UNION ALL SELECT tenant_id, analytics_day(created_at) FROM message_feedback
  UNION ALL SELECT tenant_id, analytics_day(asked_at) FROM satisfaction_surveys) d;
