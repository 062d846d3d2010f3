-- An evaluation case may be asked after earlier messages of the customer, in one conversation: a follow-up's context.
ALTER TABLE "evaluation_cases" ADD COLUMN "earlier" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[];
