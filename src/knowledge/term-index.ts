import type { Logger } from "pino";
import type { Database } from "../db/client.js";
import type { RealtimeBus } from "../realtime/pubsub.js";
import type { KnowledgeChanges } from "./remembered-searches.js";
import { addContribution, byteOrder, finalRank, parseTsvector, rankContribution } from "./term-ranking.js";

/** The options a deployment or a test may change; the defaults are what a service runs with. */
export interface TermIndexOptions {
  /** A tenant with more chunks is searched by the database: its index would hold too much of the process's memory. */
  maxChunks?: number;
  /** Postings held over all tenants (12 bytes each); the least recently searched tenants are dropped past it. */
  maxPostings?: number;
  /** How long after a change of a tenant's chunks its index is rebuilt: a crawl changes them page after page. */
  quietMs?: number;
  /**
   * How often a tenant's index is compared with its chunks (their count and newest id, one statement), for a change
   * whose announcement was lost: rebuilt when they differ. Also how long a tenant over `maxChunks` waits, tenfold.
   */
  rebuildMs?: number;
}

interface Postings {
  docs: Int32Array;
  /** Each document's `rankContribution` for the lexeme. */
  contributions: Float64Array;
}

/** Higher rank first, then chunk id, as `ORDER BY rank DESC, id` sorts (ids are lower-case ASCII: any collation agrees). */
const before = (rank: number, id: string, other: { rank: number; id: string }) =>
  rank > other.rank || (rank === other.rank && id < other.id);

/** One tenant's chunks by lexeme, as their `search` tsvectors hold them. */
export class TenantTerms {
  readonly #ids: string[];
  readonly #postings: Map<string, Postings>;
  readonly postings: number;
  readonly #matched: Uint8Array;
  readonly #sums: Float64Array;

  constructor(ids: string[], postings: Map<string, Postings>) {
    this.#ids = ids;
    this.#postings = postings;
    this.postings = [...postings.values()].reduce((n, p) => n + p.docs.length, 0);
    this.#matched = new Uint8Array(ids.length);
    this.#sums = new Float64Array(ids.length);
  }

  get size(): number {
    return this.#ids.length;
  }

  /**
   * What `fullTextCandidates` selects in the database (src/knowledge/full-text.ts), from `terms` (the question's
   * longest lexemes, longest first): the chunks with all of them ranked by ts_rank, then those with all but one, and
   * so on, `limit` in all; a level with more than `budget` matches ends the descent. The database ranks an arbitrary
   * `budget + 1` of such a level's matches; here all of them are ranked.
   */
  candidates(terms: string[], limit: number, budget: number): string[] {
    if (!terms.length || limit < 1) return [];
    const touched: number[] = [];
    // Summed in the order PostgreSQL sums a query's operands: the same single-precision roundings.
    for (const term of [...terms].sort(byteOrder)) {
      const postings = this.#postings.get(term);
      if (!postings) continue;
      for (let i = 0; i < postings.docs.length; i++) {
        const doc = postings.docs[i]!;
        if (this.#matched[doc] === 0) touched.push(doc);
        this.#matched[doc]!++;
        this.#sums[doc] = addContribution(this.#sums[doc]!, postings.contributions[i]!);
      }
    }
    // A level is the documents holding m of the terms, and those of the levels above that were not taken.
    const byCount: number[][] = Array.from({ length: terms.length + 1 }, () => []);
    for (const doc of touched) byCount[this.#matched[doc]!]!.push(doc);
    const found: string[] = [];
    let left: number[] = [];
    for (let m = terms.length; m >= 1 && found.length < limit; m--) {
      const level = left.length ? left.concat(byCount[m]!) : byCount[m]!;
      const taken = new Set(this.#best(level, terms.length, limit - found.length));
      for (const doc of taken) found.push(this.#ids[doc]!);
      if (level.length > budget) break;
      left = level.filter((doc) => !taken.has(doc));
    }
    for (const doc of touched) {
      this.#matched[doc] = 0;
      this.#sums[doc] = 0;
    }
    return found;
  }

  /** The `need` best of `docs` by rank, then chunk id: kept in order as they are met, most of them not. */
  #best(docs: number[], terms: number, need: number): number[] {
    const best: Array<{ doc: number; rank: number; id: string }> = [];
    for (const doc of docs) {
      const rank = finalRank(this.#sums[doc]!, terms);
      const id = this.#ids[doc]!;
      if (best.length === need && !before(rank, id, best[need - 1]!)) continue;
      const candidate = { doc, rank, id };
      let at = best.length;
      while (at > 0 && before(rank, id, best[at - 1]!)) at--;
      best.splice(at, 0, candidate);
      if (best.length > need) best.pop();
    }
    return best.map((b) => b.doc);
  }
}

interface TenantState {
  terms: TenantTerms | null;
  /** When a build is due next: after a change has had its quiet moment, a build's refresh, a drop's pause. */
  nextBuildAt: number;
  /** When the last build started. */
  builtAt: number;
  /** Bumped by every change: a build that started before one is not kept. */
  generation: number;
  /** The count and greatest id of the chunks `terms` was built from: a new chunk has a greater id. */
  fingerprint: string | null;
  building: boolean;
  lastUsed: number;
}

// Rows of tsvector text read per statement: on the embedded database a statement holds its one connection, and a
// page of 500 is tens of milliseconds of it.
const pageSize = 500;

export interface TermIndexDeps {
  db: Database;
  realtime: RealtimeBus;
  logger: Logger;
  /** Told of every change of a tenant's chunks it learns of; the index and the database rank alike, so not of its builds. */
  searches: KnowledgeChanges;
}

/**
 * The full-text half of knowledge search, held in memory per tenant: the database's statement ranked every match
 * of a question's words on every request (a fifth of a chat request's CPU on the embedded database, more of the
 * server's on PostgreSQL). Built from the chunks' `search` tsvectors, so the lexemes are PostgreSQL's own, and
 * ranked as ts_rank ranks. While a tenant has none that is current, the database answers: the index is dropped on
 * every change of the tenant's chunks (announced to every instance, `knowledge:changed`) and rebuilt once the
 * changes have stopped for a moment; a lost announcement is made good by the comparison every `rebuildMs`.
 */
export class TermIndex {
  readonly #deps: TermIndexDeps;
  readonly #maxChunks: number;
  readonly #maxPostings: number;
  readonly #quietMs: number;
  readonly #rebuildMs: number;
  readonly #tenants = new Map<string, TenantState>();
  // One build at a time: each reads its pages from the database that requests are using.
  #builds: Promise<void> = Promise.resolve();
  #unsubscribe: () => unknown = () => undefined;
  #listening: Promise<void> = Promise.resolve();
  #stopped = false;

  constructor(deps: TermIndexDeps, options: TermIndexOptions = {}) {
    this.#deps = deps;
    this.#maxChunks = options.maxChunks ?? 25_000;
    this.#maxPostings = options.maxPostings ?? 6_000_000;
    this.#quietMs = options.quietMs ?? 2_000;
    this.#rebuildMs = options.rebuildMs ?? 60_000;
  }

  start(): void {
    const subscription = this.#deps.realtime.pubsub.subscribe("knowledge:changed");
    this.#unsubscribe = () => subscription.return();
    this.#listening = (async () => {
      for await (const { tenantId } of subscription) this.changed(tenantId);
    })().catch((err: unknown) => this.#deps.logger.error({ err }, "term index stopped listening for changes"));
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#unsubscribe();
    await this.#listening;
    await this.#builds;
  }

  /**
   * After a committed change of the tenant's chunks: the database answers until the index is rebuilt, once the
   * changes have been quiet for a moment, and during a crawl's page after page at most every ten such moments.
   */
  changed(tenantId: string): void {
    const state = this.#state(tenantId);
    const now = Date.now();
    state.terms = null;
    state.generation++;
    state.nextBuildAt = Math.max(now + this.#quietMs, state.builtAt + 10 * this.#quietMs);
    this.#deps.searches.changed(tenantId);
  }

  /** The tenant's current index, or null (the caller asks the database), starting a build when one is due. */
  terms(tenantId: string): TenantTerms | null {
    const state = this.#state(tenantId);
    const now = Date.now();
    state.lastUsed = now;
    if (!state.building && !this.#stopped && now >= state.nextBuildAt) this.#build(tenantId, state);
    return state.terms;
  }

  /** Settles once the builds started so far have ended (tests, benchmarks). */
  async settled(): Promise<void> {
    await this.#builds;
  }

  #state(tenantId: string): TenantState {
    let state = this.#tenants.get(tenantId);
    if (!state) {
      state = { terms: null, nextBuildAt: 0, builtAt: 0, generation: 0, fingerprint: null, building: false, lastUsed: 0 };
      this.#tenants.set(tenantId, state);
    }
    return state;
  }

  #build(tenantId: string, state: TenantState): void {
    state.building = true;
    const generation = state.generation;
    this.#builds = this.#builds
      .then(async () => {
        const started = Date.now();
        state.builtAt = started;
        state.nextBuildAt = Math.max(state.nextBuildAt, started + this.#rebuildMs);
        const [chunks] = await this.#deps.db.sql.query<{ n: number; last: string | null }>(
          `SELECT count(*)::int AS n, max(id) AS last FROM chunks WHERE tenant_id = $1`,
          [tenantId],
        );
        const fingerprint = `${chunks?.n ?? 0}:${chunks?.last ?? ""}`;
        // The periodic look for a lost announcement: nothing to rebuild while the chunks are those it was built from.
        if (state.terms && fingerprint === state.fingerprint) return;
        // A change this instance did not hear of: the database answers until the rebuild is done, and searches the
        // index answered are not to be used again.
        if (state.terms) {
          state.terms = null;
          this.#deps.searches.changed(tenantId);
        }
        if ((chunks?.n ?? 0) > this.#maxChunks) {
          state.nextBuildAt = started + 10 * this.#rebuildMs;
          return;
        }
        const terms = await this.#read(tenantId);
        if (generation !== state.generation || this.#stopped) return;
        state.terms = terms;
        state.fingerprint = fingerprint;
        this.#evictBeyondBudget(tenantId);
        this.#deps.logger.debug(
          { tenantId, chunks: terms.size, postings: terms.postings, ms: Date.now() - started },
          "built a tenant's term index",
        );
      })
      .catch((err: unknown) => this.#deps.logger.warn({ err, tenantId }, "could not build a tenant's term index"))
      .finally(() => {
        state.building = false;
      });
  }

  /** The tenant's chunks' lexemes, a page at a time. */
  async #read(tenantId: string): Promise<TenantTerms> {
    const sql = this.#deps.db.sql;
    const ids: string[] = [];
    const lists = new Map<string, { docs: number[]; contributions: number[] }>();
    let after = "";
    for (;;) {
      const rows = await sql.query<{ id: string; search: string }>(
        `SELECT id, search::text AS search FROM chunks WHERE tenant_id = $1 AND id > $2 ORDER BY id LIMIT ${pageSize}`,
        [tenantId, after],
      );
      for (const row of rows) {
        const doc = ids.push(row.id) - 1;
        for (const { lexeme, labels } of parseTsvector(row.search)) {
          let list = lists.get(lexeme);
          if (!list) {
            list = { docs: [], contributions: [] };
            lists.set(lexeme, list);
          }
          list.docs.push(doc);
          list.contributions.push(rankContribution(labels));
        }
      }
      if (rows.length < pageSize) break;
      after = rows.at(-1)!.id;
    }
    const postings = new Map<string, Postings>();
    for (const [lexeme, list] of lists) {
      postings.set(lexeme, { docs: Int32Array.from(list.docs), contributions: Float64Array.from(list.contributions) });
    }
    return new TenantTerms(ids, postings);
  }

  /** Drops the least recently searched tenants' indexes while all of them hold more than the budget. */
  #evictBeyondBudget(keep: string): void {
    let total = 0;
    for (const state of this.#tenants.values()) total += state.terms?.postings ?? 0;
    const byUse = [...this.#tenants].filter(([id, s]) => id !== keep && s.terms).sort((a, b) => a[1].lastUsed - b[1].lastUsed);
    for (const [, state] of byUse) {
      if (total <= this.#maxPostings) break;
      total -= state.terms!.postings;
      state.terms = null;
      // Not rebuilt at its next search: it would evict another, which would evict it in turn.
      state.nextBuildAt = Date.now() + this.#rebuildMs;
    }
  }
}
