-- An audited change under way: written before the change, removed in the transaction that appends its record.
CREATE TABLE "audit_intents" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "actor" JSONB NOT NULL,
    "ip" TEXT,
    "action" TEXT NOT NULL,
    "target_type" TEXT NOT NULL,
    "target_id" TEXT,
    "before" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "audit_intents_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "audit_intents_created_at_idx" ON "audit_intents"("created_at");
