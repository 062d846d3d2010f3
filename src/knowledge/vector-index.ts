import type { PubSub } from "graphql-yoga";
import type { Logger } from "pino";
import type { Config } from "../config.js";
import type { Database } from "../db/client.js";
import type { Topics } from "../realtime/pubsub.js";
import type { KnowledgeChanges } from "./remembered-searches.js";
import { MemoryVectorIndex, type MemoryVectorIndexOptions } from "./vector-index-memory.js";
import { hasPgvector, PgvectorIndex } from "./vector-index-pgvector.js";

export interface VectorHit {
  chunkId: string;
  /** Cosine similarity: higher is better. */
  score: number;
}

/**
 * The approximate-nearest-neighbour index over `chunks.embedding` (DESIGN §5). Callers write chunks
 * with their embedding themselves and call `added` / `removed` once their transaction has
 * committed; `search` only ever sees the given tenant's chunks.
 */
export interface VectorIndex {
  readonly kind: "memory" | "pgvector";
  /** Ready to search when it resolves: the memory index has loaded its tenants and listens for other instances' changes. */
  start(): Promise<void>;
  /** Chunks written (or rewritten: an id already present gets its new vector). */
  added(tenantId: string, chunks: Array<{ id: string; embedding: Float32Array | number[] }>): Promise<void>;
  /** Chunks deleted; unknown ids are ignored. */
  removed(tenantId: string, chunkIds: string[]): Promise<void>;
  search(tenantId: string, query: Float32Array, k: number): Promise<VectorHit[]>;
  /**
   * The cosine similarity of `query` to each of `chunkIds` the index holds for the tenant (others are left out): what
   * a search's full-text candidates are compared by, without reading their embeddings from the database.
   */
  similarities(tenantId: string, query: Float32Array, chunkIds: string[]): Promise<Map<string, number>>;
  /** Work on the index as tenants grow and shrink, run every few minutes by one worker of all instances. */
  upkeep?(): Promise<unknown>;
  stop(): Promise<void>;
}

export interface VectorIndexDeps {
  db: Database;
  realtime: { pubsub: PubSub<Topics> };
  logger: Logger;
  /** Told when what a tenant's searches find here may have changed (the memory index's vectors; pgvector reads the database's). */
  searches: KnowledgeChanges;
}

/**
 * `auto` takes pgvector on a PostgreSQL server where the migrations could install it, and the
 * in-process index elsewhere, PGlite included: its pgvector runs without SIMD (DESIGN §5).
 */
export async function createVectorIndex(
  deps: VectorIndexDeps,
  config: Pick<Config, "VECTOR_INDEX">,
  options: MemoryVectorIndexOptions = {},
): Promise<VectorIndex> {
  const usePgvector =
    config.VECTOR_INDEX === "pgvector" ||
    (config.VECTOR_INDEX === "auto" && deps.db.kind === "postgres" && (await hasPgvector(deps.db)));
  return usePgvector ? new PgvectorIndex(deps.db) : new MemoryVectorIndex(deps, options);
}
