-- The questions a decline lists (issue 13): per day, the AI's declines that listed some, and its answers to a question
-- the customer chose from such a list.
ALTER TABLE "analytics_message_days" ADD COLUMN "offered" INTEGER NOT NULL DEFAULT 0,
                                     ADD COLUMN "chosen" INTEGER NOT NULL DEFAULT 0;

-- Days rolled up before counted neither: they are rolled up again when next read (or by the worker's refresh).
INSERT INTO analytics_stale_days (tenant_id, day) SELECT DISTINCT tenant_id, day FROM analytics_message_days;
