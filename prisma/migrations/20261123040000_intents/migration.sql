-- Tenant-defined intents with example utterances (the tenant's classifier is trained from them).
CREATE TABLE "intents" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "agent_type" TEXT NOT NULL DEFAULT 'faq',
    "urgent" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "intents_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "intents_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "intents_tenant_id_name_key" ON "intents"("tenant_id", "name");

CREATE TABLE "intent_examples" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "intent_id" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "intent_examples_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "intent_examples_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "intent_examples_intent_id_fkey" FOREIGN KEY ("intent_id") REFERENCES "intents"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "intent_examples_tenant_id_intent_id_idx" ON "intent_examples"("tenant_id", "intent_id");

-- Bumped on every change of a tenant's intents: each instance retrains its cached classifier when it sees a new value.
ALTER TABLE "tenants" ADD COLUMN "intents_version" INTEGER NOT NULL DEFAULT 0;
