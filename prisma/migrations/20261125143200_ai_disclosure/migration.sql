-- AI disclosure (issue 12, item 6): when the customer of a conversation was told they talk to an AI. The run that
-- sets it (from null) stores the disclosure message, so that two runs starting a conversation at once tell it once.
ALTER TABLE "conversations" ADD COLUMN "disclosed_at" TIMESTAMPTZ(3);
