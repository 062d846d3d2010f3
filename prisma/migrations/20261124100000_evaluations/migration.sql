-- Evaluation sets: a tenant's test questions with what each expects, and the runs that replay them through the pipeline.
CREATE TABLE "evaluation_cases" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "question" TEXT NOT NULL,
    "channel" TEXT,
    "expect" TEXT NOT NULL,
    "source" TEXT,
    "contains" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "evaluation_cases_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "evaluation_cases_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "evaluation_cases_tenant_id_created_at_idx" ON "evaluation_cases"("tenant_id", "created_at");

CREATE TABLE "evaluation_runs" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "trigger" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'running',
    "error" TEXT,
    "cases" INTEGER NOT NULL DEFAULT 0,
    "passed" INTEGER NOT NULL DEFAULT 0,
    "accuracy" DOUBLE PRECISION,
    "decline_rate" DOUBLE PRECISION,
    "results" JSONB NOT NULL DEFAULT '[]',
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),
    CONSTRAINT "evaluation_runs_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "evaluation_runs_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "evaluation_runs_tenant_id_started_at_idx" ON "evaluation_runs"("tenant_id", "started_at");
