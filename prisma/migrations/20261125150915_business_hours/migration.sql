-- Business hours (issue 12, item 7): a hand-off request outside the tenant's hours is queued with the time a
-- person is expected; analytics count these requests.
ALTER TABLE "escalations" ADD COLUMN "out_of_hours" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "escalations" ADD COLUMN "expected_at" TIMESTAMPTZ(3);
