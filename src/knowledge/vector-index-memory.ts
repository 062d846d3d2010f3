import { randomUUID } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { checkEmbeddingSize, embeddingDimensions } from "../ai/embeddings.js";
import type { Topics } from "../realtime/pubsub.js";
import { TenantVectors } from "./vector-graph.js";
import type { VectorHit, VectorIndex, VectorIndexDeps } from "./vector-index.js";
import { chunkPages, type Rows, readChunkIds } from "./vector-rows.js";
import { VectorSnapshots } from "./vector-snapshots.js";

type Change = Topics["vectors:changed"][0];

export interface MemoryVectorIndexOptions {
  /** How often loaded tenants' versions are compared with the database, to notice a lost announcement. */
  reconcileIntervalMs?: number;
  /** How long a gap in the versions applied may stay open (announcements can arrive out of order) before a rebuild. */
  gapGraceMs?: number;
  /**
   * Where tenants' vector files and graphs are kept and saved for the next start (src/knowledge/vector-snapshots.ts):
   * one instance's own directory, as DATA_DIR is. Without it they go to a temporary directory removed on stop.
   */
  snapshotDir?: string;
  /** How often tenants changed since their last snapshot are saved again (and always on stop). */
  snapshotIntervalMs?: number;
}

// Vectors inserted per native call: a native call blocks the event loop, so a build of 100,000
// vectors proceeds in slices of a fraction of a second.
const insertSlice = 256;

interface TenantState {
  tenantId: string;
  /** Set by the first load. */
  vectors: TenantVectors | null;
  ready: boolean;
  /** Every change up to this version is applied. */
  applied: number;
  /** Changes applied past a gap, waiting for the missing ones. */
  ahead: Set<number>;
  /** The highest version known to exist, from announcements or the database. */
  target: number;
  gapTimer: NodeJS.Timeout | null;
  /** Changed since its snapshot was written (or it has none). */
  dirty: boolean;
  /** Loads and changes of a tenant run one at a time, in order. */
  queue: Promise<void>;
  loaded: Promise<void>;
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
 * tenant's vectors, kept current by `added` / `removed`, its candidates scored from `chunks.embedding`.
 * Every change bumps the tenant's row in `vector_index_versions` and is announced on the pubsub; other
 * instances apply it (reading the new vectors from the database) and catch up with the database when a
 * gap in the versions stays open or the database's version differs from theirs. A tenant starts from
 * its snapshot in DATA_DIR when there is one, and from the chunks table otherwise; either way its
 * chunk ids are then made those of the database.
 */
export class MemoryVectorIndex implements VectorIndex {
  readonly kind = "memory";
  readonly #deps: VectorIndexDeps;
  readonly #reconcileIntervalMs: number;
  readonly #gapGraceMs: number;
  readonly #snapshots: VectorSnapshots;
  /** Snapshots are read and written (else the directory is a temporary one). */
  readonly #persist: boolean;
  readonly #snapshotIntervalMs: number;
  readonly #origin = randomUUID();
  readonly #tenants = new Map<string, TenantState>();
  #unsubscribe: () => Promise<unknown> = async () => undefined;
  #listening: Promise<void> = Promise.resolve();
  #timers: NodeJS.Timeout[] = [];

  constructor(deps: VectorIndexDeps, options: MemoryVectorIndexOptions = {}) {
    this.#deps = deps;
    this.#reconcileIntervalMs = options.reconcileIntervalMs ?? 30_000;
    this.#gapGraceMs = options.gapGraceMs ?? 2_000;
    this.#persist = Boolean(options.snapshotDir);
    const dir = options.snapshotDir ?? mkdtempSync(join(tmpdir(), "parley-vectors-"));
    this.#snapshots = new VectorSnapshots(dir, deps.logger);
    // Saving blocks the event loop (a 100,000-chunk graph is 170 MB): seldom, as a snapshot is only a head start.
    this.#snapshotIntervalMs = options.snapshotIntervalMs ?? 600_000;
  }

  async start(): Promise<void> {
    // Listening before loading: a change made while a tenant loads is then either in what it read or announced after.
    const subscription = this.#deps.realtime.pubsub.subscribe("vectors:changed");
    this.#unsubscribe = () => subscription.return();
    this.#listening = (async () => {
      for await (const change of subscription) this.#onAnnounced(change);
    })().catch((err: unknown) => this.#deps.logger.error({ err }, "vector index stopped listening for changes"));
    this.#timers.push(setInterval(() => void this.#reconcile(), this.#reconcileIntervalMs).unref());
    if (this.#persist) this.#timers.push(setInterval(() => void this.#saveChanged(), this.#snapshotIntervalMs).unref());
    const tenants = await this.#deps.db.sql.query<{ tenant_id: string }>(`SELECT DISTINCT tenant_id FROM chunks`);
    for (const { tenant_id } of tenants) await this.#tenant(tenant_id).loaded;
  }

  async stop(): Promise<void> {
    for (const timer of this.#timers) clearInterval(timer);
    await this.#unsubscribe();
    await this.#listening;
    const states = [...this.#tenants.values()];
    this.#tenants.clear();
    for (const state of states) {
      if (state.gapTimer) clearTimeout(state.gapTimer);
      await state.queue;
    }
    for (const state of states) {
      this.#save(state);
      state.vectors?.file.close();
    }
    if (!this.#persist) this.#snapshots.removeAll();
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
    return isZero(query) || !state.vectors ? [] : state.vectors.search(query, k);
  }

  async similarities(tenantId: string, query: Float32Array, chunkIds: string[]): Promise<Map<string, number>> {
    checkEmbeddingSize(query, "The query vector");
    const state = this.#tenant(tenantId);
    await state.loaded;
    return isZero(query) || !state.vectors ? new Map() : state.vectors.similarities(query, chunkIds);
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
        if (state.vectors) apply(state.vectors);
        state.dirty = true;
        this.#noteApplied(state, version);
        this.#deps.searches.changed(tenantId);
      });
    }
    await this.#deps.realtime.pubsub.publish("vectors:changed", { tenantId, ...change, version, origin: this.#origin });
  }

  #onAnnounced(change: Change): void {
    const state = this.#tenants.get(change.tenantId);
    if (change.origin === this.#origin || !state) return;
    this.#enqueue(state, async () => {
      const { vectors } = state;
      if (!vectors || change.version <= state.applied || state.ahead.has(change.version)) return;
      try {
        vectors.remove(change.removed);
        const found = new Set<string>();
        for await (const rows of chunkPages(this.#deps.db, change.tenantId, change.added)) {
          await insertInSlices(vectors, rows);
          for (const id of rows.ids) found.add(id);
        }
        // Added there and deleted since: the deletion's own announcement may come later, or never.
        vectors.remove(change.added.filter((id) => !found.has(id)));
        state.dirty = true;
        this.#noteApplied(state, change.version);
      } finally {
        this.#deps.searches.changed(change.tenantId);
      }
    }).catch((err: unknown) => this.#deps.logger.error({ err, tenantId: change.tenantId }, "could not apply a vector change"));
  }

  #tenant(tenantId: string): TenantState {
    const existing = this.#tenants.get(tenantId);
    if (existing) return existing;
    const state: TenantState = {
      tenantId,
      vectors: null,
      ready: false,
      applied: 0,
      ahead: new Set(),
      target: 0,
      gapTimer: null,
      dirty: false,
      queue: Promise.resolve(),
      loaded: Promise.resolve(),
    };
    const snapshot = () => (this.#persist ? this.#snapshots.read(tenantId) : null);
    state.loaded = this.#enqueue(state, () => this.#load(state, snapshot())).catch((err: unknown) => {
      this.#tenants.delete(tenantId);
      throw err;
    });
    this.#tenants.set(tenantId, state);
    return state;
  }

  /**
   * Makes the tenant's graph hold the database's chunks, starting from a snapshot, or from what it holds
   * (a missed change), or from nothing. Chunk ids are never reused for another text (ingest writes new
   * rows), so comparing ids finds every change. Reads the version before the ids: they then hold at
   * least every change up to it.
   */
  async #load(state: TenantState, snapshot: { vectors: TenantVectors; version: number } | null): Promise<void> {
    // Searches wait for a tenant's first load; a later one (catching up) changes vectors they have read.
    if (!state.ready) return this.#makeCurrent(state, snapshot);
    try {
      await this.#makeCurrent(state, snapshot);
    } finally {
      this.#deps.searches.changed(state.tenantId);
    }
  }

  async #makeCurrent(state: TenantState, snapshot: { vectors: TenantVectors; version: number } | null): Promise<void> {
    const { tenantId } = state;
    const started = Date.now();
    const [row] = await this.#deps.db.sql.query<{ version: number }>(
      `SELECT version FROM vector_index_versions WHERE tenant_id = $1`,
      [tenantId],
    );
    const version = row?.version ?? 0;
    const vectors = snapshot?.vectors ?? state.vectors ?? new TenantVectors(this.#snapshots.newFile(tenantId));
    const ids = await readChunkIds(this.#deps.db, tenantId);
    const wanted = new Set(ids);
    const stale = [...vectors.ids()].filter((id) => !wanted.has(id));
    vectors.remove(stale);
    let added = 0;
    let skipped = 0;
    for await (const rows of chunkPages(
      this.#deps.db,
      tenantId,
      ids.filter((id) => !vectors.has(id)),
    )) {
      await insertInSlices(vectors, rows);
      added += rows.ids.length;
      skipped += rows.skipped;
    }
    if (skipped)
      this.#deps.logger.warn(
        { tenantId, skipped },
        `chunks whose embedding is not ${embeddingDimensions}-d left out of the vector index`,
      );
    const changed = stale.length > 0 || added > 0;
    // The database is the truth now: anything announced past it is queued behind this and raises the target again.
    Object.assign(state, {
      vectors,
      ready: true,
      applied: version,
      ahead: new Set(),
      target: version,
      dirty: state.dirty || changed || snapshot?.version !== version,
    });
    this.#checkGap(state);
    this.#deps.logger.info(
      {
        tenantId,
        vectors: vectors.size,
        version,
        snapshot: snapshot?.version ?? null,
        added,
        removed: stale.length,
        ms: Date.now() - started,
      },
      snapshot ? "loaded a tenant's vector index from its snapshot" : "built a tenant's vector index",
    );
    // Building from the database is the slow start a snapshot saves: one is written at once.
    if (!snapshot && added > 1_000) this.#save(state);
  }

  /** Writes the tenant's snapshot if it changed since the last; a tenant without chunks loses it. */
  #save(state: TenantState): void {
    if (!this.#persist || !state.vectors || !state.dirty) return;
    try {
      if (state.vectors.size) this.#snapshots.write(state.tenantId, state.applied, state.vectors);
      else this.#snapshots.remove(state.tenantId, state.vectors.file);
      state.dirty = false;
    } catch (err) {
      this.#deps.logger.warn({ err, tenantId: state.tenantId }, "could not save a tenant's vector snapshot");
    }
  }

  async #saveChanged(): Promise<void> {
    for (const state of this.#tenants.values()) await this.#enqueue(state, async () => this.#save(state)).catch(() => undefined);
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
      this.#deps.logger.info({ tenantId, applied: state.applied, target: state.target }, "missed a vector change: catching up");
      this.#enqueue(state, () => this.#load(state, null)).catch((err: unknown) =>
        this.#deps.logger.error({ err, tenantId }, "could not catch up a tenant's vector index"),
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
          this.#deps.searches.changed(tenantId);
          // Queued behind anything still running on the tenant's vectors.
          void this.#enqueue(state, async () => {
            state.vectors?.file.close();
            if (this.#persist) this.#snapshots.remove(tenantId);
          });
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
