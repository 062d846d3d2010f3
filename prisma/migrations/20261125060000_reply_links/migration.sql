-- The customer message a reply answers. Unique: a customer message has at most one reply, so a job
-- re-run after a crash resumes an unanswered message and can never answer one twice.
ALTER TABLE "messages" ADD COLUMN "reply_to" TEXT;
CREATE UNIQUE INDEX "messages_reply_to_key" ON "messages"("reply_to");
