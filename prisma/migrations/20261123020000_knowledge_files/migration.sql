-- Uploaded PDFs are kept so that a resync can extract them again; the last crawl's per-page
-- errors and skips are kept for the admin to read.
ALTER TABLE "knowledge_sources" ADD COLUMN "file_name" TEXT;
ALTER TABLE "knowledge_sources" ADD COLUMN "file_data" BYTEA;
ALTER TABLE "knowledge_sources" ADD COLUMN "report" JSONB NOT NULL DEFAULT '{}';
CREATE INDEX "knowledge_sources_tenant_id_status_idx" ON "knowledge_sources"("tenant_id", "status");
