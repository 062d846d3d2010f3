import { RecentlyUsed } from "../ai/remembered.js";

/** What changes a tenant's knowledge as searches read it tells them (the term index, the vector index, the FAQ entry classifiers). */
export interface KnowledgeChanges {
  /** Called after something a search of the tenant's knowledge reads may have changed. */
  changed(tenantId: string): void;
}

export interface SearchCounts {
  searched: number;
  remembered: number;
}

/**
 * Recent knowledge searches' results, by tenant and query. Customers ask the same questions over and over ("what
 * are your opening hours?"), and the search is most of what answering one costs: the vector graph, the full-text
 * postings and the relevance model were two thirds of a repeated question's CPU (test/bench/README.md, chat).
 *
 * A result is used only while nothing it was found from has changed. Whatever a search reads of a tenant's knowledge
 * that can change (its term index, its vectors as this instance holds them, its FAQ entry classifier) calls `changed`
 * after each change, on every instance; every change of its chunks in the database is followed by one (the
 * `knowledge:changed` announcement, which the term index hears). That moves the tenant to a new version, and a search
 * is remembered under the version it started at: one that read part of a change is never used after it.
 */
export class RememberedSearches<T> {
  readonly #results: RecentlyUsed<{ found: Promise<T>; at: number }>;
  readonly #maxAgeMs: number;
  readonly #versions = new Map<string, number>();
  // One counter for all tenants: a version is never given twice, whatever happens to a tenant's entry.
  #next = 0;
  readonly #counts: SearchCounts = { searched: 0, remembered: 0 };

  /**
   * `limit` results at most, the least recently used forgotten first. A result holds its passages' text (a few kB):
   * 2,000 are some MB, while a bank's frequent questions are some hundreds. None is used past `maxAgeMs`: an
   * announcement of a change can be lost (Redis reconnecting), and where nothing else finds the change (pgvector reads
   * the database itself; a tenant too large for the term index is searched by the database too), this bounds how long
   * a question could be answered from the knowledge before it.
   */
  constructor({ limit = 2_000, maxAgeMs = 5 * 60_000 }: { limit?: number; maxAgeMs?: number } = {}) {
    this.#results = new RecentlyUsed(limit);
    this.#maxAgeMs = maxAgeMs;
  }

  /** Searches made and searches answered from memory since the start (`/metrics`). */
  get counts(): Readonly<SearchCounts> {
    return this.#counts;
  }

  changed(tenantId: string): void {
    this.#versions.set(tenantId, ++this.#next);
  }

  /**
   * The result remembered for the tenant's `query` at its current version, else `search`'s, remembered. Callers
   * asking the same at once share one search; a failed search is forgotten. The values are shared, never to be changed.
   */
  recall(tenantId: string, query: string, search: () => Promise<T>): Promise<T> {
    const key = `${tenantId}\n${this.#versions.get(tenantId) ?? 0}\n${query}`;
    const now = Date.now();
    const known = this.#results.get(key);
    if (known && now - known.at <= this.#maxAgeMs) {
      this.#counts.remembered++;
      return known.found;
    }
    this.#counts.searched++;
    const entry = { found: search(), at: now };
    this.#results.set(key, entry);
    entry.found.catch(() => this.#results.delete(key, entry));
    return entry.found;
  }
}
