-- Customer feedback (issue 12, item 8): thumbs up/down on the AI's replies, one per message, and the satisfaction
-- score asked at resolution.
CREATE TABLE "message_feedback" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "message_id" TEXT NOT NULL,
    "conversation_id" TEXT NOT NULL,
    "channel" TEXT NOT NULL,
    "rating" TEXT NOT NULL,
    "comment" TEXT,
    "source" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "message_feedback_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "message_feedback_message_id_key" ON "message_feedback"("message_id");
CREATE INDEX "message_feedback_tenant_id_created_at_idx" ON "message_feedback"("tenant_id", "created_at");
CREATE INDEX "message_feedback_conversation_id_idx" ON "message_feedback"("conversation_id");
ALTER TABLE "message_feedback" ADD CONSTRAINT "message_feedback_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "message_feedback" ADD CONSTRAINT "message_feedback_message_id_fkey" FOREIGN KEY ("message_id") REFERENCES "messages"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "message_feedback" ADD CONSTRAINT "message_feedback_conversation_id_fkey" FOREIGN KEY ("conversation_id") REFERENCES "conversations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "satisfaction_surveys" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "conversation_id" TEXT NOT NULL,
    "channel" TEXT NOT NULL,
    "question_message_id" TEXT,
    "score" INTEGER,
    "asked_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "answered_at" TIMESTAMPTZ(3),
    CONSTRAINT "satisfaction_surveys_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "satisfaction_surveys_tenant_id_asked_at_idx" ON "satisfaction_surveys"("tenant_id", "asked_at");
CREATE INDEX "satisfaction_surveys_conversation_id_asked_at_idx" ON "satisfaction_surveys"("conversation_id", "asked_at");
ALTER TABLE "satisfaction_surveys" ADD CONSTRAINT "satisfaction_surveys_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "satisfaction_surveys" ADD CONSTRAINT "satisfaction_surveys_conversation_id_fkey" FOREIGN KEY ("conversation_id") REFERENCES "conversations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
