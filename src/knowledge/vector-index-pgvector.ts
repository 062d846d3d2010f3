import { createHash } from "node:crypto";
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

/**
 * Every row of the tenant compared with the query, no index: the `OFFSET 0` keeps the ordering outside the scan, where
 * the HNSW index cannot answer it (the planner would otherwise be free to take it, with pgvector's default breadth of
 * 40 and no iterative scan).
 */
const exactNearest = `SELECT id, distance FROM (
    SELECT id, ("embedding"::halfvec(1536) <=> $1::halfvec(1536))::float8 AS distance
      FROM "chunks"
      WHERE "tenant_id" = $2 AND "embedding" IS NOT NULL
      OFFSET 0) AS tenant_chunks
  ORDER BY distance
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

/**
 * Whether a tenant of `tenantRows` chunks is better searched by comparing each of its rows than through the HNSW graph
 * of all tenants' `graphRows`. The graph's search with the tenant filter walks other tenants' chunks until enough of
 * this one's have passed it, and those it finds are not its nearest when the tenant is a small share of the graph:
 * beside 200,000 chunks of another tenant, recall@20 0.88 for 500 chunks in 105 ms, 0.93 for 1,000 in 78 ms, 0.96 for
 * 2,000 in 58–71 ms; 0.69 (recall@10) for 2,000 beside a million (test/bench/README.md, knowledge). Its own rows
 * compared exactly are right every time, at about 30 µs a row (each `real[]` embedding read and cast): 15 ms for 500,
 * 32 for 1,000, 60 for 2,000, 142 for 5,000. So: always up to a few hundred, and up to a few thousand where the tenant
 * is under a hundredth of the graph.
 */
export function searchesExactly(tenantRows: number, graphRows: number, policy = exactSearch): boolean {
  return tenantRows <= policy.always || (tenantRows <= policy.atMost && tenantRows < policy.belowShare * graphRows);
}

/** Up to how many chunks a tenant is searched exactly: `always`, or `atMost` while it is below `belowShare` of the graph. */
export interface ExactSearchPolicy {
  always: number;
  atMost: number;
  belowShare: number;
}
export const exactSearch: ExactSearchPolicy = { always: 500, atMost: 5_000, belowShare: 0.01 };

/**
 * Which tenants get an HNSW graph of their own, a partial index of their chunks alone: the `most` largest of at least
 * `from` chunks (more than an exact comparison does in about 60 ms) that hold less than `mostShare` of all (the graph
 * of all is mostly a larger one's already, and a second graph of a million chunks would take as long to build and as
 * much room), kept while they have `keepFrom` (a tenant deleting a few chunks at the boundary does not have its graph
 * dropped and built again). Beside 200,000 chunks of another tenant, its own graph found 0.999 of a 5,000-chunk
 * tenant's true 20 nearest in 8 ms (built in 3 s), where the shared graph found 0.929 in 40 ms and an exact comparison
 * takes 142 ms; at 10,000 chunks 0.997 in 11 ms against 0.924 in 30 and 314 ms. Each partial index costs every query on
 * the table planning time (about 36 µs the search's, 5 µs others') and every row written a check: a few dozen, not one
 * per tenant. Smaller tenants, and those past the `most` that are small enough, are compared exactly
 * (`searchesExactly`); the rest share the graph of all.
 */
export interface TenantGraphPolicy {
  from: number;
  keepFrom: number;
  most: number;
  mostShare: number;
}
export const tenantGraphs: TenantGraphPolicy = { from: 2_001, keepFrom: 1_000, most: 50, mostShare: 0.5 };

/** The partial index of the tenant's own graph: named by a digest, as a tenant id need not be a valid identifier. */
export const tenantGraphName = (tenantId: string) =>
  `chunks_hnsw_tenant_${createHash("sha256").update(tenantId).digest("hex").slice(0, 24)}`;

const ownGraphIndexes = `FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
  WHERE i.indrelid = to_regclass('chunks') AND c.relname LIKE 'chunks\\_hnsw\\_tenant\\_%'`;

const sqlLiteral = (text: string) => `'${text.replaceAll("'", "''")}'`;

// The planner's estimate of the table's rows (autovacuum keeps it within a tenth) and a tenant's chunks, read at most
// this often: they grow by crawls and uploads, not from one search to the next. This instance's own writes to a tenant
// are counted again at once (`added`, `removed`).
const rowsMaxAgeMs = 60_000;

interface Reading<T> {
  value: Promise<T>;
  at: number;
}

/** What a query read, kept for a minute; a failed read is tried again by the next caller, not remembered. */
function remembered<T>(readings: Map<string, Reading<T>>, key: string, read: () => Promise<T>): Promise<T> {
  const known = readings.get(key);
  if (known && Date.now() - known.at <= rowsMaxAgeMs) return known.value;
  const entry = { value: read(), at: Date.now() };
  readings.set(key, entry);
  entry.value.catch(() => {
    if (readings.get(key) === entry) readings.delete(key);
  });
  return entry.value;
}

/** A chunk and its cosine distance to the query. */
interface Near {
  id: string;
  distance: number;
}

/** A query vector as pgvector's text input. */
const vectorLiteral = (query: Float32Array) => `[${query.join(",")}]`;

/**
 * pgvector's HNSW expression index over the canonical `real[]` column (DESIGN §5). The database
 * keeps it current as rows are written, so `added` and `removed` have nothing to do.
 */
export class PgvectorIndex implements VectorIndex {
  readonly kind = "pgvector";

  /** The graph's rows, per tenant its chunks up to the most an exact search takes (one more means more), own graphs. */
  readonly #graphRowReadings = new Map<string, Reading<number>>();
  readonly #tenantRows = new Map<string, Reading<number>>();
  readonly #ownGraphReadings = new Map<string, Reading<Set<string>>>();

  constructor(
    private readonly db: Database,
    private readonly exact = exactSearch,
    // PGlite's pgvector builds without SIMD on the database's one thread (DESIGN §5): a tenant's graph there would hold
    // every other query up for minutes, so its tenants share the graph built at start.
    private readonly ownGraphs = db.kind === "pglite" ? { ...tenantGraphs, most: 0 } : tenantGraphs,
  ) {}

  async start(): Promise<void> {
    if (!(await hasPgvector(this.db))) {
      throw new Error("VECTOR_INDEX=pgvector needs the pgvector extension in the database; use VECTOR_INDEX=auto or memory");
    }
    // An HNSW build that does not fit in maintenance_work_mem is several times slower: at least
    // 256MB, more where the server is set so (1M chunks take about 4GB). One simple query runs as
    // one implicit transaction: the setting ends with it, and so does a failure.
    await this.db.sql.exec(`${buildMemory}; ${createIndex}`);
  }

  async added(tenantId: string, chunks: Array<{ id: string; embedding: Float32Array | number[] }>): Promise<void> {
    for (const c of chunks) checkEmbeddingSize(c.embedding, `The embedding of chunk ${c.id}`);
    this.#tenantRows.delete(tenantId);
  }

  async removed(tenantId: string, _chunkIds: string[]): Promise<void> {
    this.#tenantRows.delete(tenantId);
  }

  /** A text without words embeds to zero, which has no direction to compare: no hits. */
  async search(tenantId: string, query: Float32Array, k: number): Promise<VectorHit[]> {
    checkEmbeddingSize(query, "The query vector");
    if (k < 1 || query.every((x) => x === 0)) return [];
    const params: [string, string, number] = [vectorLiteral(query), tenantId, k];
    const { exact, graphRows } = await this.#plan(tenantId);
    const graph = exact ? [] : await this.#inTransaction<Near>(nearest, params, graphRows);
    // Short when the iterative scan gave up (hnsw.max_scan_tuples) before finding k of a tenant that is a small part of
    // the table, or when the tenant has fewer than k chunks: its own rows are then few enough to compare exactly.
    const rows = graph.length < k ? await this.db.sql.query<Near>(exactNearest, params) : graph;
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

  /**
   * Builds the own graphs of the tenants that now qualify for one and drops those of tenants that no longer do
   * (`tenantGraphs`). The planner takes a tenant's partial index for the search's query as it stands. Run by one worker
   * at a time (src/knowledge/vector-upkeep.ts); each build is `CONCURRENTLY`, so chunks are written meanwhile, and the
   * shared graph serves the tenant until its own is valid.
   */
  async upkeep(): Promise<{ built: string[]; dropped: string[] }> {
    const { from, keepFrom, most, mostShare } = this.ownGraphs;
    const largest = await this.db.sql.query<{ tenant_id: string; rows: number; total: number }>(
      `SELECT tenant_id, rows, total FROM (
         SELECT tenant_id, count(*)::int AS rows, (sum(count(*)) OVER ())::float8 AS total FROM "chunks" GROUP BY tenant_id
       ) AS tenants
       WHERE rows >= $1 ORDER BY rows DESC, tenant_id LIMIT $2`,
      [keepFrom, most],
    );
    // An index another session is still building is invalid until it finishes: it is neither dropped nor built again.
    const present = await this.db.sql.query<{ name: string; valid: boolean; building: boolean }>(
      `SELECT c.relname AS name, i.indisvalid AS valid,
              EXISTS (SELECT 1 FROM pg_stat_progress_create_index p WHERE p.index_relid = i.indexrelid) AS building
         ${ownGraphIndexes}`,
    );
    const state = new Map(present.map((p) => [p.name, p]));
    const wanted = new Map<string, string>();
    for (const { tenant_id, rows, total } of largest) {
      const name = tenantGraphName(tenant_id);
      if ((rows >= from && rows < mostShare * total) || state.get(name)?.valid) wanted.set(name, tenant_id);
    }
    const dropped = present.filter((p) => !p.building && (!wanted.has(p.name) || !p.valid)).map((p) => p.name);
    for (const name of dropped) await this.db.sql.exec(`DROP INDEX CONCURRENTLY IF EXISTS "${name}"`);
    const built: string[] = [];
    for (const [name, tenantId] of wanted) {
      const known = state.get(name);
      if (known?.building || known?.valid) continue;
      await this.db.sql.exec(
        `CREATE INDEX CONCURRENTLY IF NOT EXISTS "${name}" ON "chunks"
          USING hnsw (("embedding"::halfvec(1536)) halfvec_cosine_ops) WHERE "tenant_id" = ${sqlLiteral(tenantId)}`,
      );
      built.push(name);
    }
    if (built.length || dropped.length) this.#ownGraphReadings.clear();
    return { built, dropped };
  }

  async stop(): Promise<void> {}

  /** The plan of `search`'s query for the tenant, with its settings: the HNSW graph's, or the exact comparison's. */
  async explain(tenantId: string, query: Float32Array, k: number): Promise<string> {
    const params: [string, string, number] = [vectorLiteral(query), tenantId, k];
    const { exact, graphRows } = await this.#plan(tenantId);
    type Line = { "QUERY PLAN": string };
    const rows = exact
      ? await this.db.sql.query<Line>(`EXPLAIN ${exactNearest}`, params)
      : await this.#inTransaction<Line>(`EXPLAIN ${nearest}`, params, graphRows);
    return rows.map((r) => r["QUERY PLAN"]).join("\n");
  }

  /** Exactly, or through a graph: the tenant's own where it has one, else the graph of all tenants' `graphRows`. */
  async #plan(tenantId: string): Promise<{ exact: boolean; graphRows: number }> {
    const [tenantRows, graphRows, ownGraphs] = await Promise.all([
      this.#countTenantRows(tenantId),
      this.#graphRows(),
      this.#ownGraphs(),
    ]);
    return { exact: !ownGraphs.has(tenantGraphName(tenantId)) && searchesExactly(tenantRows, graphRows, this.exact), graphRows };
  }

  /** The valid own graphs' names: a tenant keeps its graph below the size at which an exact search would be taken. */
  #ownGraphs(): Promise<Set<string>> {
    return remembered(this.#ownGraphReadings, "chunks", () =>
      this.db.sql
        .query<{ name: string }>(`SELECT c.relname AS name ${ownGraphIndexes} AND i.indisvalid`)
        .then((rows) => new Set(rows.map((r) => r.name))),
    );
  }

  #countTenantRows(tenantId: string): Promise<number> {
    // Counting stops past the most an exact search takes: a large tenant's count would read its whole btree.
    return remembered(this.#tenantRows, tenantId, () =>
      this.db.sql
        .query<{ rows: number }>(
          `SELECT count(*)::int AS rows FROM (SELECT 1 FROM "chunks" WHERE "tenant_id" = $1 LIMIT $2) AS counted`,
          [tenantId, Math.max(this.exact.always, this.exact.atMost) + 1],
        )
        .then(([row]) => row?.rows ?? 0),
    );
  }

  /** The chunks the HNSW graph holds, as the planner estimates them (0 before the table's first analysis). */
  #graphRows(): Promise<number> {
    return remembered(this.#graphRowReadings, "chunks", () =>
      this.db.sql
        .query<{ rows: number }>(`SELECT GREATEST(reltuples, 0)::float8 AS rows FROM pg_class WHERE oid = to_regclass('chunks')`)
        .then(([row]) => row?.rows ?? 0),
    );
  }

  // A transaction of its own, on one connection, so that the settings apply to this query only.
  async #inTransaction<Row>(sql: string, params: [string, string, number], graphRows: number): Promise<Row[]> {
    const breadth = String(efSearch(params[2], graphRows));
    return this.db.prisma.$transaction(async (tx) => {
      await tx.$queryRawUnsafe(settings, breadth);
      return tx.$queryRawUnsafe<Row[]>(sql, ...params);
    });
  }
}
