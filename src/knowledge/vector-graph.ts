import { createRequire } from "node:module";
import { embeddingDimensions } from "../ai/embeddings.js";

// usearch's ES module finds its native build from __dirname or a stack trace, which fails once a
// bundler or vitest has transformed it; its CommonJS build, loaded by Node itself, always works.
const { Index, MetricKind, ScalarKind } = createRequire(import.meta.url)("usearch") as typeof import("usearch");

type Graph = InstanceType<typeof Index>;

const newGraph = (): Graph =>
  new Index({
    dimensions: embeddingDimensions,
    metric: MetricKind.Cos,
    // One byte a dimension: 100,000 chunks take 150 MB where f16 took 300 (test/bench/README.md). The
    // order this gives is approximate; the memory index re-scores its candidates from the stored vectors.
    quantization: ScalarKind.I8,
    connectivity: 16,
    expansion_add: 128,
    // On help-text chunks from the offline embedder, usearch's default of 64 gave recall@10 0.96 at
    // 10,000 chunks; 128 gave 0.945 at 100,000, and 256 gives 0.98 there for 0.3 ms more a query.
    expansion_search: 256,
    multi: false,
  });

/**
 * int8 with a scale of each vector's own: its largest component becomes ±127, so every vector uses the
 * whole range (usearch's own cast divides by the length, which leaves a 1,536-d unit vector's components
 * within a few steps of zero). Cosine does not see the scale, so it is not kept.
 */
export function quantise(vectors: Float32Array): Int8Array {
  const out = new Int8Array(vectors.length);
  for (let start = 0; start < vectors.length; start += embeddingDimensions) {
    let largest = 0;
    for (let i = start; i < start + embeddingDimensions; i++) largest = Math.max(largest, Math.abs(vectors[i]!));
    if (largest === 0) continue;
    const scale = 127 / largest;
    for (let i = start; i < start + embeddingDimensions; i++) out[i] = Math.round(vectors[i]! * scale);
  }
  return out;
}

/** What a snapshot keeps beside the graph's own file: which chunk each of its keys stands for. */
export interface GraphKeys {
  keys: number[];
  ids: string[];
  nextKey: number;
}

/**
 * One tenant's usearch HNSW graph (cosine, connectivity 16, int8: DESIGN §5's measurements) and the
 * mapping between its integer keys and chunk ids. A rewritten chunk gets a fresh key, so a stale
 * vector can never come back under its id.
 */
export class TenantVectors {
  readonly #graph: Graph;
  readonly #keyOf = new Map<string, number>();
  readonly #idOf = new Map<number, string>();
  #nextKey = 1;

  constructor(graph: Graph = newGraph()) {
    this.#graph = graph;
  }

  /** A graph saved by `save`, with the keys it was saved with. */
  static load(path: string, saved: GraphKeys): TenantVectors {
    const graph = newGraph();
    graph.load(path);
    const vectors = new TenantVectors(graph);
    for (const [i, key] of saved.keys.entries()) {
      vectors.#keyOf.set(saved.ids[i]!, key);
      vectors.#idOf.set(key, saved.ids[i]!);
    }
    vectors.#nextKey = saved.nextKey;
    return vectors;
  }

  /** Writes the graph to `path` and returns what `load` needs besides. */
  save(path: string): GraphKeys {
    this.#graph.save(path);
    return { keys: [...this.#idOf.keys()], ids: [...this.#idOf.values()], nextKey: this.#nextKey };
  }

  get size(): number {
    return this.#keyOf.size;
  }

  has(id: string): boolean {
    return this.#keyOf.has(id);
  }

  ids(): IterableIterator<string> {
    return this.#keyOf.keys();
  }

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
    this.#graph.add(keys, quantise(vectors), 0);
    for (const [i, id] of ids.entries()) {
      if (this.#keyOf.get(id) !== Number(keys[i])) this.#graph.remove(keys[i]!);
    }
  }

  remove(ids: Iterable<string>): void {
    for (const id of ids) {
      const key = this.#keyOf.get(id);
      if (key === undefined) continue;
      this.#graph.remove(BigInt(key));
      this.#keyOf.delete(id);
      this.#idOf.delete(key);
    }
  }

  /** The ids of the `n` nearest vectors by their int8 cosine, nearest first. */
  nearest(query: Float32Array, n: number): string[] {
    const wanted = Math.min(n, this.#keyOf.size);
    if (wanted < 1) return [];
    const { keys } = this.#graph.search(quantise(query), wanted, 1);
    const ids: string[] = [];
    for (const key of keys) {
      const chunkId = this.#idOf.get(Number(key));
      if (chunkId) ids.push(chunkId);
    }
    return ids;
  }
}
