-- A claim looks for the oldest due job of each of its queues (served round-robin): one short index walk
-- per queue, over live jobs only.
CREATE INDEX "jobs_queue_live_run_at_idx" ON "jobs"("queue", "run_at") WHERE "status" IN ('pending', 'running');
