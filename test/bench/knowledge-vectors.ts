import { HashingEmbedder } from "../../src/ai/embeddings.js";
import { searchKnowledge } from "../../src/knowledge/search.js";
import { createVectorIndex } from "../../src/knowledge/vector-index.js";
import { retrievalTopK } from "../../src/pipeline/retriever.js";
import { bankText } from "./bank-text.js";
import {
  type BenchDatabase,
  benchDatabases,
  type Corpus,
  corpus,
  fixed,
  latencies,
  loadChunks,
  noteRow,
  percentile,
  sizesFrom,
  startBenchApp,
  thousands,
} from "./harness.js";

// BENCH_VECTOR_SIZES=2000 for a quick run; the 100,000 run takes a quarter of an hour.
const sizes = sizesFrom("BENCH_VECTOR_SIZES", [10_000, 100_000]);
// pgvector inside PGlite builds its HNSW index in WebAssembly without SIMD: minutes at 10,000 already (DESIGN §5).
const pgvectorMaxSize = 10_000;
const queryCount = 200;
const k = 10;

interface Queries {
  texts: string[];
  vectors: Float32Array[];
  /** Per query, the corpus positions of its true top k. */
  exact: Array<Set<number>>;
}

/** The true top k by cosine similarity (the vectors are unit length, so a dot product). */
function exactTop(data: Corpus, query: Float32Array): Set<number> {
  const best: Array<{ i: number; score: number }> = [];
  for (let i = 0; i < data.texts.length; i++) {
    let score = 0;
    const offset = i * data.dimensions;
    for (let d = 0; d < data.dimensions; d++) score += data.vectors[offset + d]! * query[d]!;
    if (best.length < k || score > best[k - 1]!.score) {
      best.push({ i, score });
      best.sort((a, b) => b.score - a.score);
      if (best.length > k) best.pop();
    }
  }
  return new Set(best.map((b) => b.i));
}

function queries(data: Corpus, seed: number): Queries {
  const text = bankText(seed);
  const embedder = new HashingEmbedder();
  const texts = Array.from({ length: queryCount }, () => text.query());
  const vectors = texts.map((t) => embedder.embedOne(t));
  return { texts, vectors, exact: vectors.map((v) => exactTop(data, v)) };
}

/** With NODE_OPTIONS=--expose-gc, garbage left by loading the data does not blur the index's own share. */
function residentMemory(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().rss;
}

const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(0);

/**
 * One index on one database: the chunks written to a fresh service's database, then the index built
 * over them (`start()` and the first search, which loads the tenant into the memory index), then
 * the index alone against the exact answers, then the whole hybrid search the retriever runs.
 */
async function measure(kind: "memory" | "pgvector", database: BenchDatabase, data: Corpus, asked: Queries) {
  // The service's own index is the in-process one over an empty database; the index measured is
  // created next to it once the chunks are in, as a restarted service would build it.
  const app = await startBenchApp(database, { VECTOR_INDEX: "memory" });
  try {
    const { tenantId } = await app.tenant("Bench Bank");
    const ids = await loadChunks(app.services, tenantId, data);
    const { db, realtime, logger } = app.services;
    const index = await createVectorIndex({ db, realtime, logger }, { VECTOR_INDEX: kind });
    const rssBefore = residentMemory();
    const started = performance.now();
    await index.start();
    await index.search(tenantId, asked.vectors[0]!, k);
    const buildSeconds = (performance.now() - started) / 1000;
    const rssDelta = residentMemory() - rssBefore;
    try {
      const position = new Map(ids.map((id, i) => [id, i]));
      let found = 0;
      const vectorTimes = await latencies([...asked.vectors.keys()], async (q) => {
        const hits = await index.search(tenantId, asked.vectors[q]!, k);
        found += hits.filter((h) => asked.exact[q]!.has(position.get(h.chunkId)!)).length;
      });
      const services = { ...app.services, vectors: index };
      const hybridTimes = await latencies(asked.texts, (query) => searchKnowledge(services, tenantId, query, retrievalTopK));
      console.log(
        `| ${kind} | ${database.name} | ${thousands(data.texts.length)} | ${fixed(buildSeconds, 1)} | ${mb(rssDelta)} ` +
          `| ${fixed(percentile(vectorTimes, 0.5))} | ${fixed(found / (k * queryCount), 3)} ` +
          `| ${fixed(percentile(hybridTimes, 0.5))} | ${fixed(percentile(hybridTimes, 0.99))} |`,
      );
    } finally {
      await index.stop();
    }
  } finally {
    await app.close();
  }
}

/**
 * Knowledge search at 10,000 and 100,000 chunks of one tenant: bank help text (seeded), embedded
 * by the offline embedder and written to the chunks table. Recall@10 is the vector index's against
 * an exact scan of the same vectors; the latency is the whole hybrid search (query embedding,
 * vector and full-text candidates, fusion, reading the chunks) at the retriever's top-k.
 */
export async function benchKnowledgeSearch(): Promise<void> {
  const { databases, unreachable } = await benchDatabases();
  console.log(`\n### Search (${queryCount} queries, hybrid top ${retrievalTopK})\n`);
  console.log(
    "| index | database | chunks | build (s) | RSS Δ (MB) | vector p50 (ms) | recall@10 | hybrid p50 (ms) | hybrid p99 (ms) |",
  );
  console.log("|---|---|---:|---:|---:|---:|---:|---:|---:|");
  for (const size of sizes) {
    const started = performance.now();
    const data = corpus(size);
    const embedSeconds = (performance.now() - started) / 1000;
    const asked = queries(data, size + 1);
    for (const database of databases) {
      await measure("memory", database, data, asked);
      if (database.name === "PGlite" && size <= pgvectorMaxSize) await measure("pgvector", database, data, asked);
    }
    console.error(`(${size} chunks embedded in ${embedSeconds.toFixed(1)} s: ${Math.round(size / embedSeconds)} per second)`);
  }
  if (unreachable) console.log(noteRow(9, 1, unreachable));
}
