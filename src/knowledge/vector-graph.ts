import { createRequire } from "node:module";
import { embeddingDimensions, squaredLength } from "../ai/embeddings.js";
import type { VectorFile } from "./vector-file.js";

// usearch's ES module finds its native build from __dirname or a stack trace, which fails once a
// bundler or vitest has transformed it; its CommonJS build, loaded by Node itself, always works.
const { Index, MetricKind, ScalarKind } = createRequire(import.meta.url)("usearch") as typeof import("usearch");

type Graph = InstanceType<typeof Index>;

const newGraph = (): Graph =>
  new Index({
    dimensions: embeddingDimensions,
    metric: MetricKind.Cos,
    // One byte a dimension: 100,000 chunks take 150 MB where f16 took 300 (test/bench/README.md). The
    // order this gives is approximate: candidates are re-scored from their float32 rows.
    quantization: ScalarKind.I8,
    connectivity: 16,
    expansion_add: 128,
    // A search's breadth is set per search, by the count it asks for (usearch explores max(expansion, count)).
    expansion_search: 16,
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

// The int8 order is approximate (recall@10 0.84 at 100,000 chunks): the graph proposes this many times the
// hits asked for, and their float32 vectors decide (0.985; test/bench/README.md).
const rescoreFactor = 4;

/**
 * How many candidates the graph explores for a search of a tenant of `size` chunks. A fixed breadth of 256 was what
 * 100,000 chunks need (recall@20 0.977 on help-text chunks from the offline embedder), and twice what 10,000 do: a
 * breadth growing with the logarithm of the size keeps recall@20 at 0.99 from 2,000 to 10,000 chunks, 0.977 at
 * 100,000, for two thirds of the search's time at 10,000 (test/bench/README.md).
 */
const searchBreadth = (size: number) => Math.round(96 * Math.log10(Math.max(size, 1_000)) - 224);

/** A query's components that are not zero: the offline embedder's hashed features leave most of 1,536 at zero. */
interface Query {
  vector: Float32Array;
  nonZero: Uint16Array;
  squared: number;
}

function queryOf(vector: Float32Array): Query {
  const nonZero: number[] = [];
  for (let i = 0; i < vector.length; i++) if (vector[i] !== 0) nonZero.push(i);
  return { vector, nonZero: Uint16Array.from(nonZero), squared: squaredLength(vector) };
}

/**
 * Cosine similarity of the query and a row of known squared length. Only the query's non-zero components are
 * multiplied (a zero adds nothing to the sum: the same figure), and each row's squared length is summed once, not at
 * every search that re-scores it: the two were most of the re-scoring's arithmetic.
 */
function cosine(query: Query, row: Float32Array, rowSquared: number): number {
  let dot = 0;
  const { vector, nonZero } = query;
  for (let j = 0; j < nonZero.length; j++) {
    const i = nonZero[j]!;
    dot += vector[i]! * row[i]!;
  }
  return query.squared === 0 || rowSquared === 0 ? 0 : dot / Math.sqrt(query.squared * rowSquared);
}

/**
 * One tenant's usearch HNSW graph (cosine, connectivity 16, int8: DESIGN §5's measurements), the float32
 * rows its candidates are re-scored with (a VectorFile, row = key), and the mapping between keys and
 * chunk ids. A rewritten chunk gets another key, so a stale vector can never come back under its id;
 * a removed chunk's key (and row) is taken again by a later one.
 */
export class TenantVectors {
  readonly file: VectorFile;
  readonly #graph: Graph;
  readonly #keyOf = new Map<string, number>();
  readonly #idOf = new Map<number, string>();
  /** Each row's squared length by key, NaN until it is known (a loaded snapshot's rows are summed when first read). */
  #squares = new Float64Array(0);
  #free: number[] = [];
  #nextKey = 0;

  constructor(file: VectorFile, graph: Graph = newGraph()) {
    this.file = file;
    this.#graph = graph;
  }

  /** A graph saved by `save`, with the keys it was saved with, over the rows of `file`. */
  static load(path: string, file: VectorFile, saved: GraphKeys): TenantVectors {
    const graph = newGraph();
    graph.load(path);
    const vectors = new TenantVectors(file, graph);
    for (const [i, key] of saved.keys.entries()) {
      vectors.#keyOf.set(saved.ids[i]!, key);
      vectors.#idOf.set(key, saved.ids[i]!);
    }
    vectors.#nextKey = saved.nextKey;
    for (let key = 0; key < saved.nextKey; key++) if (!vectors.#idOf.has(key)) vectors.#free.push(key);
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
      // The same id twice in one call: the last vector wins, the earlier one is removed below.
      const key = this.#free.pop() ?? this.#nextKey++;
      keys[i] = BigInt(key);
      this.#keyOf.set(id, key);
      this.#idOf.set(key, id);
    }
    this.file.write(Array.from(keys, Number), vectors);
    for (let i = 0; i < ids.length; i++)
      this.#setSquared(Number(keys[i]), squaredLength(vectors.subarray(i * embeddingDimensions, (i + 1) * embeddingDimensions)));
    this.#graph.add(keys, quantise(vectors), 0);
    for (const [i, id] of ids.entries()) {
      const key = Number(keys[i]);
      if (this.#keyOf.get(id) === key) continue;
      this.#graph.remove(keys[i]!);
      this.#idOf.delete(key);
      this.#free.push(key);
    }
  }

  remove(ids: Iterable<string>): void {
    for (const id of ids) {
      const key = this.#keyOf.get(id);
      if (key === undefined) continue;
      this.#graph.remove(BigInt(key));
      this.#keyOf.delete(id);
      this.#idOf.delete(key);
      this.#free.push(key);
    }
  }

  /** The `k` nearest chunks by cosine: the int8 graph's candidates, scored from their float32 rows. */
  search(query: Float32Array, k: number): Array<{ chunkId: string; score: number }> {
    const size = this.#keyOf.size;
    const wanted = Math.min(k * rescoreFactor, size);
    if (wanted < 1) return [];
    const explored = Math.min(Math.max(wanted, searchBreadth(size)), size);
    // The graph's matches come nearest first by the int8 distance: its best `wanted` are re-scored.
    const keys = Array.from(this.#graph.search(quantise(query), explored, 1).keys, Number)
      .filter((key) => this.#idOf.has(key))
      .slice(0, wanted);
    const hits: Array<{ chunkId: string; score: number }> = [];
    this.#scored(query, keys, (chunkId, score) => hits.push({ chunkId, score }));
    return hits.sort((a, b) => b.score - a.score).slice(0, k);
  }

  /** The cosine similarity of `query` to each of `ids` held here, from their float32 rows. */
  similarities(query: Float32Array, ids: string[]): Map<string, number> {
    const keys = ids.map((id) => this.#keyOf.get(id)).filter((key) => key !== undefined);
    const scores = new Map<string, number>();
    this.#scored(query, keys, (chunkId, score) => scores.set(chunkId, score));
    return scores;
  }

  /** The cosine of `query` to each of `keys` that the rows file holds, from its float32 row. */
  #scored(query: Float32Array, keys: number[], visit: (chunkId: string, score: number) => void): void {
    const asked = queryOf(query);
    this.file.read(keys, (i, vector) => {
      const key = keys[i]!;
      let squared = this.#squares[key] ?? Number.NaN;
      if (Number.isNaN(squared)) {
        squared = squaredLength(vector);
        this.#setSquared(key, squared);
      }
      visit(this.#idOf.get(key)!, cosine(asked, vector, squared));
    });
  }

  #setSquared(key: number, squared: number): void {
    if (key >= this.#squares.length) {
      const grown = new Float64Array(Math.max(key + 1, this.#squares.length * 2, 1_024)).fill(Number.NaN);
      grown.set(this.#squares);
      this.#squares = grown;
    }
    this.#squares[key] = squared;
  }
}
