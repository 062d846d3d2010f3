import { checkEmbeddingSize } from "../ai/embeddings.js";
import type { Database } from "../db/client.js";
import type { VectorHit, VectorIndex } from "./vector-index.js";

export async function hasPgvector(db: Database): Promise<boolean> {
  const [row] = await db.sql.query<{ installed: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector') AS installed`,
  );
  return row?.installed === true;
}

// The same definition as the migration's, which leaves it out on PGlite and on servers that had no
// pgvector when it ran.
const createIndex = `CREATE INDEX IF NOT EXISTS "chunks_embedding_hnsw_idx" ON "chunks"
  USING hnsw (("embedding"::halfvec(1536)) halfvec_cosine_ops)`;

const nearest = `SELECT id, ("embedding"::halfvec(1536) <=> $1::halfvec(1536))::float8 AS distance
  FROM "chunks"
  WHERE "tenant_id" = $2
  ORDER BY "embedding"::halfvec(1536) <=> $1::halfvec(1536)
  LIMIT $3`;

const buildMemory = `SELECT set_config('maintenance_work_mem',
  greatest(pg_size_bytes(current_setting('maintenance_work_mem')), 256 * 1024 * 1024) / 1024 || 'kB', true)`;

/**
 * Per-query planner settings. With a tenant filter the planner prefers the tenant's btree and a sort
 * over the HNSW index (DESIGN §7); without sorts allowed, the index's ordered scan is the one plan
 * left. pgvector's iterative scan then keeps walking the graph until `k` rows of the tenant have
 * passed the filter, rather than filtering a fixed `ef_search` candidates and coming back short;
 * `relaxed_order` may return them slightly out of order, so they are sorted again here.
 */
const settings = `SELECT set_config('enable_sort', 'off', true),
  set_config('hnsw.iterative_scan', 'relaxed_order', true),
  set_config('hnsw.ef_search', $1, true)`;

/**
 * `hnsw.ef_search` for the `k` nearest in a graph of `rows` chunks (all tenants'). It must be at least k to return k
 * rows from one pass, and within pgvector's bound of 1,000. The graph's search finds fewer of the true nearest as it
 * grows: recall@10 at 200 is 0.977 at 100,000 chunks of 1536 dimensions and 0.926 at 1,000,000, where 300 gives
 * 0.948, 400 0.961 and 600 0.975 (test/bench/README.md, knowledge). So the breadth grows with the logarithm of the
 * rows, as the memory index's does: 200 up to 100,000, 400 at a million; pgvector's default (40) and 64 miss a tenth
 * of the true 10 nearest already at 100,000.
 */
export const efSearch = (k: number, rows: number) =>
  Math.min(1000, Math.max(200, 4 * k, Math.round(200 * Math.log10(Math.max(rows, 1)) - 800)));

// The planner's estimate of the table's rows (autovacuum keeps it within a tenth), read at most this often: the graph
// grows by crawls and uploads, not from one search to the next.
const rowsMaxAgeMs = 60_000;

/** A query vector as pgvector's text input. */
const vectorLiteral = (query: Float32Array) => `[${query.join(",")}]`;

/**
 * pgvector's HNSW expression index over the canonical `real[]` column (DESIGN §5). The database
 * keeps it current as rows are written, so `added` and `removed` have nothing to do.
 */
export class PgvectorIndex implements VectorIndex {
  readonly kind = "pgvector";

  #rows: { estimate: Promise<number>; at: number } | null = null;

  constructor(private readonly db: Database) {}

  async start(): Promise<void> {
    if (!(await hasPgvector(this.db))) {
      throw new Error("VECTOR_INDEX=pgvector needs the pgvector extension in the database; use VECTOR_INDEX=auto or memory");
    }
    // An HNSW build that does not fit in maintenance_work_mem is several times slower: at least
    // 256MB, more where the server is set so (1M chunks take about 4GB). One simple query runs as
    // one implicit transaction: the setting ends with it, and so does a failure.
    await this.db.sql.exec(`${buildMemory}; ${createIndex}`);
  }

  async added(_tenantId: string, chunks: Array<{ id: string; embedding: Float32Array | number[] }>): Promise<void> {
    for (const c of chunks) checkEmbeddingSize(c.embedding, `The embedding of chunk ${c.id}`);
  }

  async removed(): Promise<void> {}

  /** A text without words embeds to zero, which has no direction to compare: no hits. */
  async search(tenantId: string, query: Float32Array, k: number): Promise<VectorHit[]> {
    checkEmbeddingSize(query, "The query vector");
    if (k < 1 || query.every((x) => x === 0)) return [];
    const params: [string, string, number] = [vectorLiteral(query), tenantId, k];
    let rows = (await this.#inTransaction(nearest, params)) as Array<{ id: string; distance: number }>;
    // Short when the iterative scan gave up (hnsw.max_scan_tuples) before finding k of a tenant that
    // is a small part of the table, or when the tenant has fewer than k chunks: its own rows, sorted
    // exactly, are then few enough.
    if (rows.length < k) rows = await this.db.sql.query(nearest, params);
    return rows.map((r) => ({ chunkId: r.id, score: 1 - r.distance })).sort((a, b) => b.score - a.score);
  }

  async similarities(tenantId: string, query: Float32Array, chunkIds: string[]): Promise<Map<string, number>> {
    checkEmbeddingSize(query, "The query vector");
    if (!chunkIds.length || query.every((x) => x === 0)) return new Map();
    const rows = await this.db.sql.query<{ id: string; distance: number }>(
      `SELECT id, ("embedding"::halfvec(1536) <=> $1::halfvec(1536))::float8 AS distance
         FROM "chunks" WHERE "tenant_id" = $2 AND id = ANY($3::text[]) AND "embedding" IS NOT NULL`,
      [vectorLiteral(query), tenantId, chunkIds],
    );
    return new Map(rows.map((r) => [r.id, 1 - r.distance]));
  }

  async stop(): Promise<void> {}

  /** The plan of `search`'s query with its settings, for checking that it uses the HNSW index. */
  async explain(tenantId: string, query: Float32Array, k: number): Promise<string> {
    const rows = await this.#inTransaction(`EXPLAIN ${nearest}`, [vectorLiteral(query), tenantId, k]);
    return (rows as Array<{ "QUERY PLAN": string }>).map((r) => r["QUERY PLAN"]).join("\n");
  }

  /** The chunks the HNSW graph holds, as the planner estimates them (0 before the table's first analysis). */
  #graphRows(): Promise<number> {
    if (!this.#rows || Date.now() - this.#rows.at > rowsMaxAgeMs) {
      const estimate = this.db.sql
        .query<{ rows: number }>(`SELECT GREATEST(reltuples, 0)::float8 AS rows FROM pg_class WHERE oid = to_regclass('chunks')`)
        .then(([row]) => row?.rows ?? 0);
      this.#rows = { estimate, at: Date.now() };
      // A failed read is tried again by the next search, not remembered for a minute.
      estimate.catch(() => {
        if (this.#rows?.estimate === estimate) this.#rows = null;
      });
    }
    return this.#rows.estimate;
  }

  // A transaction of its own, on one connection, so that the settings apply to this query only.
  async #inTransaction(sql: string, params: [string, string, number]): Promise<unknown[]> {
    const breadth = String(efSearch(params[2], await this.#graphRows()));
    return this.db.prisma.$transaction(async (tx) => {
      await tx.$queryRawUnsafe(settings, breadth);
      return tx.$queryRawUnsafe<unknown[]>(sql, ...params);
    });
  }
}
