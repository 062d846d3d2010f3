import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { checkEmbeddingSize, embeddingDimensions } from "../ai/embeddings.js";
import type { Database } from "../db/client.js";
import type { Topics } from "../realtime/pubsub.js";
import type { VectorHit, VectorIndex, VectorIndexDeps } from "./vector-index.js";

type Change = Topics["vectors:changed"][0];

// usearch's ES module finds its native build from __dirname or a stack trace, which fails once a
// bundler or vitest has transformed it; its CommonJS build, loaded by Node itself, always works.
const { Index, MetricKind, ScalarKind } = createRequire(import.meta.url)("usearch") as typeof import("usearch");

export interface MemoryVectorIndexOptions {
  /** How often loaded tenants' versions are compared with the database, to notice a lost announcement. */
  reconcileIntervalMs?: number;
  /** How long a gap in the versions applied may stay open (announcements can arrive out of order) before a rebuild. */
  gapGraceMs?: number;
}

// Rows read per query while building, and vectors inserted per native call: a native call blocks the
// event loop, so a build of 100,000 vectors proceeds in slices of a fraction of a second.
const pageSize = 2_000;
const insertSlice = 256;

/**
 * One tenant's usearch HNSW graph (cosine, connectivity 16, f16: DESIGN §7's measurements) and the
 * mapping between its integer keys and chunk ids. A rewritten chunk gets a fresh key, so a stale
 * vector can never come back under its id.
 */
class TenantVectors {
  readonly #index = new Index({
    dimensions: embeddingDimensions,
    metric: MetricKind.Cos,
    quantization: ScalarKind.F16,
    connectivity: 16,
    expansion_add: 128,
    // On help-text chunks from the offline embedder, usearch's default of 64 gave recall@10 0.96 at
    // 10,000 chunks; 128 gave 0.945 at 100,000, and 256 gives 0.98 there for 0.3 ms more a query.
    expansion_search: 256,
    multi: false,
  });
  readonly #keyOf = new Map<string, number>();
  readonly #idOf = new Map<number, string>();
  #nextKey = 1;

  /** `vectors` holds ids.length embeddings back to back. */
  upsert(ids: string[], vectors: Float32Array): void {
    this.remove(ids);
    const keys = new BigUint64Array(ids.length);
    for (const [i, id] of ids.entries()) {
      // The same id twice in one call: the last vector wins, the earlier one goes under a dead key.
      const earlier = this.#keyOf.get(id);
      if (earlier !== undefined) this.#idOf.delete(earlier);
      const key = this.#nextKey++;
      keys[i] = BigInt(key);
      this.#keyOf.set(id, key);
      this.#idOf.set(key, id);
    }
    this.#index.add(keys, vectors, 0);
    for (const [i, id] of ids.entries()) {
      if (this.#keyOf.get(id) !== Number(keys[i])) this.#index.remove(keys[i]!);
    }
  }

  remove(ids: string[]): void {
    for (const id of ids) {
      const key = this.#keyOf.get(id);
      if (key === undefined) continue;
      this.#index.remove(BigInt(key));
      this.#keyOf.delete(id);
      this.#idOf.delete(key);
    }
  }

  search(query: Float32Array, k: number): VectorHit[] {
    const wanted = Math.min(k, this.#keyOf.size);
    if (wanted < 1) return [];
    const { keys, distances } = this.#index.search(query, wanted, 1);
    const hits: VectorHit[] = [];
    for (const [i, key] of keys.entries()) {
      const chunkId = this.#idOf.get(Number(key));
      if (chunkId) hits.push({ chunkId, score: 1 - distances[i]! });
    }
    return hits;
  }
}

interface TenantState {
  tenantId: string;
  vectors: TenantVectors;
  ready: boolean;
  /** Every change up to this version is applied. */
  applied: number;
  /** Changes applied past a gap, waiting for the missing ones. */
  ahead: Set<number>;
  /** The highest version known to exist, from announcements or the database. */
  target: number;
  gapTimer: NodeJS.Timeout | null;
  /** Loads and changes of a tenant run one at a time, in order. */
  queue: Promise<void>;
  loaded: Promise<void>;
}

/**
 * A chunk's embedding into `out` at `offset`; false when it is not a 1536-d vector without nulls.
 * From PostgreSQL it comes as the binary `array_send` output: a fifth of the bytes of the text form,
 * and no number parsing, which otherwise dominates loading 100,000 embeddings. PGlite is the
 * other way round (bytea crosses its boundary as hex): there the parsed array is quicker.
 */
function decodeEmbedding(embedding: Uint8Array | number[], out: Float32Array, offset: number): boolean {
  if (Array.isArray(embedding)) {
    if (embedding.length !== embeddingDimensions || embedding.some((x) => x === null)) return false;
    out.set(embedding, offset);
    return true;
  }
  const view = new DataView(embedding.buffer, embedding.byteOffset, embedding.byteLength);
  if (view.getInt32(0) !== 1 || view.getInt32(12) !== embeddingDimensions) return false;
  for (let i = 0, p = 20; i < embeddingDimensions; i++, p += 8) {
    if (view.getInt32(p) !== 4) return false;
    out[offset + i] = view.getFloat32(p + 4);
  }
  return true;
}

interface Rows {
  ids: string[];
  vectors: Float32Array;
  /** Rows whose embedding is not a 1536-d vector. */
  skipped: number;
}

async function readRows(db: Database, where: string, params: unknown[]): Promise<Rows & { lastId: string | null }> {
  const column = db.kind === "postgres" ? "array_send(c.embedding)" : "c.embedding";
  // The page's ids first: selected with the rows, the embedding would be read and converted for every
  // row of the tenant before the sort kept 2,000 of them (a 100,000-chunk build took four minutes).
  const rows = await db.sql.query<{ id: string; embedding: Uint8Array | number[] }>(
    `SELECT c.id, ${column} AS embedding
       FROM (SELECT id FROM chunks WHERE embedding IS NOT NULL AND ${where} ORDER BY id LIMIT ${pageSize}) page
       JOIN chunks c ON c.id = page.id
      ORDER BY c.id`,
    params,
  );
  const vectors = new Float32Array(rows.length * embeddingDimensions);
  const ids: string[] = [];
  for (const row of rows) {
    if (decodeEmbedding(row.embedding, vectors, ids.length * embeddingDimensions)) ids.push(row.id);
  }
  return {
    ids,
    vectors: vectors.subarray(0, ids.length * embeddingDimensions),
    skipped: rows.length - ids.length,
    lastId: rows.length === pageSize ? rows.at(-1)!.id : null,
  };
}

async function insertInSlices(vectors: TenantVectors, rows: Rows): Promise<void> {
  for (let i = 0; i < rows.ids.length; i += insertSlice) {
    const end = Math.min(i + insertSlice, rows.ids.length);
    vectors.upsert(rows.ids.slice(i, end), rows.vectors.subarray(i * embeddingDimensions, end * embeddingDimensions));
    await yieldToEventLoop();
  }
}

function flatten(chunks: Array<{ embedding: Float32Array | number[] }>): Float32Array {
  const out = new Float32Array(chunks.length * embeddingDimensions);
  for (const [i, c] of chunks.entries()) out.set(c.embedding, i * embeddingDimensions);
  return out;
}

const isZero = (v: Float32Array) => v.every((x) => x === 0);

/**
 * The in-process index (DESIGN §5): one usearch graph per tenant, so a search cannot reach another
 * tenant's vectors, built from `chunks.embedding` and kept current by `added` / `removed`. Every
 * change bumps the tenant's row in `vector_index_versions` and is announced on the pubsub; other
 * instances apply it (reading the new vectors from the database) and rebuild the tenant when a gap
 * in the versions stays open or the database's version differs from theirs.
 */
export class MemoryVectorIndex implements VectorIndex {
  readonly kind = "memory";
  readonly #deps: VectorIndexDeps;
  readonly #reconcileIntervalMs: number;
  readonly #gapGraceMs: number;
  readonly #origin = randomUUID();
  readonly #tenants = new Map<string, TenantState>();
  #unsubscribe: () => Promise<unknown> = async () => undefined;
  #listening: Promise<void> = Promise.resolve();
  #reconcileTimer: NodeJS.Timeout | null = null;

  constructor(deps: VectorIndexDeps, options: MemoryVectorIndexOptions = {}) {
    this.#deps = deps;
    this.#reconcileIntervalMs = options.reconcileIntervalMs ?? 30_000;
    this.#gapGraceMs = options.gapGraceMs ?? 2_000;
  }

  async start(): Promise<void> {
    // Listening before loading: a change made while a tenant loads is then either in what it read or announced after.
    const subscription = this.#deps.realtime.pubsub.subscribe("vectors:changed");
    this.#unsubscribe = () => subscription.return();
    this.#listening = (async () => {
      for await (const change of subscription) this.#onAnnounced(change);
    })().catch((err: unknown) => this.#deps.logger.error({ err }, "vector index stopped listening for changes"));
    this.#reconcileTimer = setInterval(() => void this.#reconcile(), this.#reconcileIntervalMs).unref();
    const tenants = await this.#deps.db.sql.query<{ tenant_id: string }>(`SELECT DISTINCT tenant_id FROM chunks`);
    for (const { tenant_id } of tenants) await this.#tenant(tenant_id).loaded;
  }

  async stop(): Promise<void> {
    if (this.#reconcileTimer) clearInterval(this.#reconcileTimer);
    await this.#unsubscribe();
    await this.#listening;
    const states = [...this.#tenants.values()];
    this.#tenants.clear();
    for (const state of states) {
      if (state.gapTimer) clearTimeout(state.gapTimer);
      await state.queue;
    }
  }

  async added(tenantId: string, chunks: Array<{ id: string; embedding: Float32Array | number[] }>): Promise<void> {
    for (const c of chunks) checkEmbeddingSize(c.embedding, `The embedding of chunk ${c.id}`);
    if (!chunks.length) return;
    const ids = chunks.map((c) => c.id);
    await this.#change(tenantId, { added: ids, removed: [] }, (vectors) => vectors.upsert(ids, flatten(chunks)));
  }

  async removed(tenantId: string, chunkIds: string[]): Promise<void> {
    if (!chunkIds.length) return;
    await this.#change(tenantId, { added: [], removed: chunkIds }, (vectors) => vectors.remove(chunkIds));
  }

  async search(tenantId: string, query: Float32Array, k: number): Promise<VectorHit[]> {
    checkEmbeddingSize(query, "The query vector");
    const state = this.#tenant(tenantId);
    await state.loaded;
    // A text without words embeds to zero, which has no direction to compare.
    return isZero(query) ? [] : state.vectors.search(query, k);
  }

  async #change(tenantId: string, change: Omit<Change, "tenantId" | "version" | "origin">, apply: (v: TenantVectors) => void) {
    const [row] = await this.#deps.db.sql.query<{ version: number }>(
      `INSERT INTO vector_index_versions (tenant_id, version, updated_at) VALUES ($1, 1, now())
         ON CONFLICT (tenant_id) DO UPDATE SET version = vector_index_versions.version + 1, updated_at = now()
       RETURNING version`,
      [tenantId],
    );
    const version = row!.version;
    // A tenant not loaded here reads these rows when it is first searched.
    const state = this.#tenants.get(tenantId);
    if (state) {
      await this.#enqueue(state, async () => {
        apply(state.vectors);
        this.#noteApplied(state, version);
      });
    }
    await this.#deps.realtime.pubsub.publish("vectors:changed", { tenantId, ...change, version, origin: this.#origin });
  }

  #onAnnounced(change: Change): void {
    const state = this.#tenants.get(change.tenantId);
    if (change.origin === this.#origin || !state) return;
    this.#enqueue(state, async () => {
      if (change.version <= state.applied || state.ahead.has(change.version)) return;
      state.vectors.remove(change.removed);
      const found = new Set<string>();
      for (let i = 0; i < change.added.length; i += pageSize) {
        const rows = await readRows(this.#deps.db, "tenant_id = $1 AND id = ANY($2::text[])", [
          change.tenantId,
          change.added.slice(i, i + pageSize),
        ]);
        await insertInSlices(state.vectors, rows);
        for (const id of rows.ids) found.add(id);
      }
      // Added there and deleted since: the deletion's own announcement may come later, or never.
      state.vectors.remove(change.added.filter((id) => !found.has(id)));
      this.#noteApplied(state, change.version);
    }).catch((err: unknown) => this.#deps.logger.error({ err, tenantId: change.tenantId }, "could not apply a vector change"));
  }

  #tenant(tenantId: string): TenantState {
    const existing = this.#tenants.get(tenantId);
    if (existing) return existing;
    const state: TenantState = {
      tenantId,
      vectors: new TenantVectors(),
      ready: false,
      applied: 0,
      ahead: new Set(),
      target: 0,
      gapTimer: null,
      queue: Promise.resolve(),
      loaded: Promise.resolve(),
    };
    state.loaded = this.#enqueue(state, () => this.#rebuild(state)).catch((err: unknown) => {
      this.#tenants.delete(tenantId);
      throw err;
    });
    this.#tenants.set(tenantId, state);
    return state;
  }

  /** Reads the version before the rows: the rows then hold at least every change up to it. */
  async #rebuild(state: TenantState): Promise<void> {
    const { tenantId } = state;
    const started = Date.now();
    const [row] = await this.#deps.db.sql.query<{ version: number }>(
      `SELECT version FROM vector_index_versions WHERE tenant_id = $1`,
      [tenantId],
    );
    const version = row?.version ?? 0;
    const vectors = new TenantVectors();
    let count = 0;
    let skipped = 0;
    for (let after: string | null = ""; after !== null; ) {
      const rows: Rows & { lastId: string | null } = await readRows(this.#deps.db, "tenant_id = $1 AND id > $2", [
        tenantId,
        after,
      ]);
      await insertInSlices(vectors, rows);
      count += rows.ids.length;
      skipped += rows.skipped;
      after = rows.lastId;
    }
    if (skipped)
      this.#deps.logger.warn(
        { tenantId, skipped },
        `chunks whose embedding is not ${embeddingDimensions}-d left out of the vector index`,
      );
    // The database is the truth now: anything announced past it is queued behind this and raises the target again.
    Object.assign(state, { vectors, ready: true, applied: version, ahead: new Set(), target: version });
    this.#checkGap(state);
    this.#deps.logger.debug({ tenantId, vectors: count, version, ms: Date.now() - started }, "built a tenant's vector index");
  }

  #noteApplied(state: TenantState, version: number): void {
    if (version > state.applied) state.ahead.add(version);
    while (state.ahead.delete(state.applied + 1)) state.applied++;
    state.target = Math.max(state.target, version);
    this.#checkGap(state);
  }

  #checkGap(state: TenantState): void {
    const { tenantId } = state;
    if (state.applied >= state.target) {
      if (state.gapTimer) clearTimeout(state.gapTimer);
      state.gapTimer = null;
      return;
    }
    state.gapTimer ??= setTimeout(() => {
      state.gapTimer = null;
      if (state.applied >= state.target || this.#tenants.get(tenantId) !== state) return;
      this.#deps.logger.info({ tenantId, applied: state.applied, target: state.target }, "missed a vector change: rebuilding");
      this.#enqueue(state, () => this.#rebuild(state)).catch((err: unknown) =>
        this.#deps.logger.error({ err, tenantId }, "could not rebuild a tenant's vector index"),
      );
    }, this.#gapGraceMs).unref();
  }

  /** Catches a change whose announcement never came, and tenants deleted with their chunks. */
  async #reconcile(): Promise<void> {
    const loaded = [...this.#tenants].filter(([, s]) => s.ready);
    if (!loaded.length) return;
    try {
      const rows = await this.#deps.db.sql.query<{ tenant_id: string; version: number }>(
        `SELECT tenant_id, version FROM vector_index_versions WHERE tenant_id = ANY($1::text[])`,
        [loaded.map(([id]) => id)],
      );
      const versions = new Map(rows.map((r) => [r.tenant_id, r.version]));
      for (const [tenantId, state] of loaded) {
        const version = versions.get(tenantId) ?? 0;
        if (version < state.applied) {
          this.#tenants.delete(tenantId);
          continue;
        }
        state.target = Math.max(state.target, version);
        this.#checkGap(state);
      }
    } catch (err) {
      this.#deps.logger.warn({ err }, "could not compare vector index versions with the database");
    }
  }

  #enqueue(state: TenantState, task: () => Promise<void>): Promise<void> {
    const run = state.queue.then(task);
    state.queue = run.catch(() => undefined);
    return run;
  }
}
