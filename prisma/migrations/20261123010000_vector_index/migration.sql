-- The vector index (DESIGN §5). The canonical embedding stays `real[]` on every database; pgvector's
-- HNSW index is an expression index over it, created only where the extension can be installed, so
-- these migrations run unchanged on a server without pgvector (the in-process index is used there).
-- Not on PGlite: its pgvector runs as WebAssembly without SIMD, and keeping an HNSW index current
-- there costs 30-80 ms per inserted chunk even when the in-process index is the one in use. The
-- pgvector index creates it when VECTOR_INDEX=pgvector is forced on PGlite.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') THEN
    BEGIN
      CREATE EXTENSION IF NOT EXISTS vector;
    EXCEPTION WHEN insufficient_privilege THEN
      RAISE NOTICE 'pgvector is available but this role may not install it: the in-process vector index will be used';
    END;
    IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector') AND version() NOT LIKE '%PGlite%' THEN
      -- An HNSW build that does not fit in maintenance_work_mem is several times slower.
      PERFORM set_config('maintenance_work_mem', '512MB', true);
      CREATE INDEX IF NOT EXISTS "chunks_embedding_hnsw_idx" ON "chunks"
        USING hnsw (("embedding"::halfvec(1536)) halfvec_cosine_ops);
    END IF;
  END IF;
END
$$;

-- Bumped with every change to a tenant's chunks that the vector index is told about: an instance
-- keeping an in-process index compares it with the changes it has applied to notice one it missed.
CREATE TABLE "vector_index_versions" (
    "tenant_id" TEXT NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "vector_index_versions_pkey" PRIMARY KEY ("tenant_id"),
    CONSTRAINT "vector_index_versions_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
