-- The human team (issue 7): teams of agents, dashboard sessions, escalations, and what analytics reads.

-- An escalation goes to the team whose intents include the conversation's intent; with none, to any agent.
CREATE TABLE "teams" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "intents" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "teams_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "teams_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "teams_tenant_id_name_key" ON "teams"("tenant_id", "name");

CREATE TABLE "team_members" (
    "team_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "team_members_pkey" PRIMARY KEY ("team_id", "user_id"),
    CONSTRAINT "team_members_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "team_members_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "team_members_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "team_members_user_id_idx" ON "team_members"("user_id");

-- Ties between equally loaded agents go to the one who waited longest for a conversation.
ALTER TABLE "users" ADD COLUMN "last_assigned_at" TIMESTAMPTZ(3);

-- A dashboard login: the token is shown once and stored as its SHA-256, like an API key.
CREATE TABLE "user_sessions" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(3),
    CONSTRAINT "user_sessions_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "user_sessions_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "user_sessions_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "user_sessions_token_hash_key" ON "user_sessions"("token_hash");
CREATE INDEX "user_sessions_user_id_idx" ON "user_sessions"("user_id");

CREATE TABLE "escalations" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "conversation_id" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "priority" TEXT NOT NULL DEFAULT 'normal',
    "status" TEXT NOT NULL DEFAULT 'open',
    "team_id" TEXT,
    "assignee_id" TEXT,
    "note" TEXT,
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "assigned_at" TIMESTAMPTZ(3),
    "first_response_at" TIMESTAMPTZ(3),
    "resolved_at" TIMESTAMPTZ(3),
    CONSTRAINT "escalations_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "escalations_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "escalations_conversation_id_fkey" FOREIGN KEY ("conversation_id") REFERENCES "conversations"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "escalations_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "teams"("id") ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT "escalations_assignee_id_fkey" FOREIGN KEY ("assignee_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE
);
-- At most one escalation of a conversation is being worked at a time.
CREATE UNIQUE INDEX "escalations_active_conversation_key" ON "escalations"("conversation_id") WHERE "status" <> 'resolved';
CREATE INDEX "escalations_conversation_id_idx" ON "escalations"("conversation_id");
CREATE INDEX "escalations_tenant_id_status_created_at_idx" ON "escalations"("tenant_id", "status", "created_at");
CREATE INDEX "escalations_tenant_id_assignee_id_status_idx" ON "escalations"("tenant_id", "assignee_id", "status");
CREATE INDEX "escalations_tenant_id_created_at_idx" ON "escalations"("tenant_id", "created_at");

-- What analytics reads of a message, derived by the database from the metadata the pipeline writes, so that
-- the figures come from an index alone (README, Analytics): the intent, whether the AI's answer was grounded in
-- knowledge above the relevance threshold, and the tokens it used. A value of another JSON type reads as null.
ALTER TABLE "messages"
    ADD COLUMN "intent" TEXT GENERATED ALWAYS AS ("metadata" ->> 'intent') STORED,
    ADD COLUMN "grounded" BOOLEAN GENERATED ALWAYS AS (
        CASE jsonb_typeof("metadata" -> 'grounded') WHEN 'boolean' THEN ("metadata" ->> 'grounded')::boolean END
    ) STORED,
    ADD COLUMN "tokens_used" INTEGER GENERATED ALWAYS AS (
        CASE jsonb_typeof("metadata" -> 'tokensUsed')
            WHEN 'number' THEN LEAST(("metadata" ->> 'tokensUsed')::numeric, 2147483647)::integer
        END
    ) STORED;

DROP INDEX "messages_tenant_id_created_at_idx";
CREATE INDEX "messages_tenant_id_created_at_idx" ON "messages"("tenant_id", "created_at")
    INCLUDE ("role", "intent", "grounded", "tokens_used", "conversation_id");
-- The AI's answers that were not grounded: the unanswered questions are the customer messages before them.
CREATE INDEX "messages_ungrounded_idx" ON "messages"("tenant_id", "created_at") INCLUDE ("conversation_id")
    WHERE "role" = 'assistant' AND "grounded" = false;

DROP INDEX IF EXISTS "conversations_tenant_id_created_at_idx";
CREATE INDEX "conversations_tenant_id_created_at_idx" ON "conversations"("tenant_id", "created_at") INCLUDE ("channel", "status");
