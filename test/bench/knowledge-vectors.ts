import { rmSync } from "node:fs";
import { join } from "node:path";
import { HashingEmbedder } from "../../src/ai/embeddings.js";
import { searchKnowledge } from "../../src/knowledge/search.js";
import { createVectorIndex } from "../../src/knowledge/vector-index.js";
import type { PgvectorIndex } from "../../src/knowledge/vector-index-pgvector.js";
import { retrievalTopK } from "../../src/pipeline/retriever.js";
import type { TestApp } from "../helpers/app.js";
import { serverHasPgvector } from "../helpers/database.js";
import { freePort, runScript, whenServing } from "../helpers/process.js";
import { testTempDir } from "../helpers/temp.js";
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
// BENCH_VECTOR_INDEXES=pgvector for pgvector alone (1,000,000 chunks would take the memory index a long build).
const kinds = (process.env.BENCH_VECTOR_INDEXES ?? "memory,pgvector").split(",");
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

const mb = (megabytes: number) => megabytes.toFixed(0);

interface Restart {
  kind: "memory" | "pgvector";
  database: BenchDatabase["name"];
  chunks: number;
  seconds: number;
  megabytes: number;
}

/** The largest size's restarts, for the targets below the table. */
const restarts: Restart[] = [];
const serviceRestarts: Restart[] = [];
/** pgvector on a PostgreSQL server, per size, for issue 14's scale row. */
const pgvectorRows: Array<{ chunks: number; recall: number; hybridP50: number }> = [];
/** Smaller tenants written beside the largest size's, searched as the service searches them after its upkeep. */
const besideRows: Array<{ chunks: number; beside: number; search: string; recall: number; p50: number }> = [];
const besideSizes = [500, 2_000, 8_000];

/**
 * Tenants of a few hundred to a few thousand chunks written into the table of a large one: pgvector compares the
 * smallest exactly, gives the largest a graph of its own at its upkeep, and leaves the others in the shared graph
 * (src/knowledge/vector-index-pgvector.ts). Which of the three served each is read from the query's plan.
 */
async function besideLargeTenant(app: TestApp, index: PgvectorIndex, beside: number): Promise<void> {
  const tenants = [];
  for (const size of besideSizes) {
    const { tenantId } = await app.tenant(`Bench Bank ${size}`);
    const data = corpus(size);
    tenants.push({ size, tenantId, data, ids: await loadChunks(app.services, tenantId, data) });
    await index.added(tenantId, []);
  }
  await index.upkeep();
  for (const { size, tenantId, data, ids } of tenants) {
    const asked = queries(data, size + 3);
    const position = new Map(ids.map((id, i) => [id, i]));
    let found = 0;
    const times = await latencies([...asked.vectors.keys()], async (q) => {
      const hits = await index.search(tenantId, asked.vectors[q]!, k);
      found += hits.filter((h) => asked.exact[q]!.has(position.get(h.chunkId)!)).length;
    });
    const plan = await index.explain(tenantId, asked.vectors[0]!, k);
    const search = /chunks_hnsw_tenant_/.test(plan) ? "its own graph" : /hnsw/.test(plan) ? "shared graph" : "exact";
    besideRows.push({ chunks: size, beside, search, recall: found / (k * queryCount), p50: percentile(times, 0.5) });
  }
}

/**
 * The service as `npm start` runs it, in a process of its own, on the database and DATA_DIR the
 * measured index left: seconds from its start to its first answered knowledge search (PostgreSQL
 * only: the benchmark's PGlite lives in the benchmark's memory).
 */
async function serviceRestart(databaseUrl: string, dataDir: string, apiKey: string, kind: Restart["kind"]): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const service = runScript("src/main.ts", [], {
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    PORT: String(port),
    VECTOR_INDEX: kind,
  });
  try {
    const answer = await whenServing(
      `http://127.0.0.1:${port}/api/knowledge`,
      {
        method: "POST",
        headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ query: "How do I reset my card PIN?" }),
      },
      600_000,
    );
    if (answer.status !== 200) throw new Error(`the restarted service answered ${answer.status}: ${await answer.text()}`);
    return (performance.now() - started) / 1000;
  } finally {
    service.child.kill("SIGTERM");
    await service.exit();
  }
}

/**
 * One index on one database: the chunks written to a fresh service's database, then the index built
 * over them (`start()` and the first search, which loads the tenant into the memory index), then
 * the index alone against the exact answers, then the whole hybrid search the retriever runs; then
 * (memory) the index stopped and started again from its snapshot, as a restarted instance does, and
 * on PostgreSQL the whole service restarted in its own process.
 */
async function measure(kind: "memory" | "pgvector", database: BenchDatabase, data: Corpus, asked: Queries, largest: boolean) {
  // The service's own index is the in-process one over an empty database; the index measured is
  // created next to it once the chunks are in, as a restarted service would build it.
  const app = await startBenchApp(database, { VECTOR_INDEX: "memory" });
  const dataDir = testTempDir("parley-bench-vectors");
  const snapshotDir = join(dataDir, "vector-index");
  try {
    const { tenantId, apiKey } = await app.tenant("Bench Bank");
    // On a server with pgvector the migrations made its HNSW index: the chunks are loaded without it,
    // and pgvector's build is its creation over them (`start()`), as the memory index builds its own.
    await app.services.db.sql.exec(`DROP INDEX IF EXISTS "chunks_embedding_hnsw_idx"`);
    const ids = await loadChunks(app.services, tenantId, data);
    const { db, realtime, logger, searches } = app.services;
    const open = () => createVectorIndex({ db, realtime, logger, searches }, { VECTOR_INDEX: kind }, { snapshotDir });
    const ready = async () => {
      const index = await open();
      const rssBefore = residentMemory();
      const started = performance.now();
      await index.start();
      await index.search(tenantId, asked.vectors[0]!, k);
      return { index, seconds: (performance.now() - started) / 1000, megabytes: (residentMemory() - rssBefore) / 2 ** 20 };
    };
    const built = await ready();
    const { index } = built;
    let restart: { seconds: number; megabytes: number } | null = null;
    try {
      const position = new Map(ids.map((id, i) => [id, i]));
      let found = 0;
      const vectorTimes = await latencies([...asked.vectors.keys()], async (q) => {
        const hits = await index.search(tenantId, asked.vectors[q]!, k);
        found += hits.filter((h) => asked.exact[q]!.has(position.get(h.chunkId)!)).length;
      });
      const services = { ...app.services, vectors: index };
      const hybridTimes = await latencies(asked.texts, (query) => searchKnowledge(services, tenantId, query, retrievalTopK));
      if (kind === "memory") {
        await index.stop();
        const again = await ready();
        await again.index.stop();
        restart = again;
        if (largest) restarts.push({ kind, database: database.name, chunks: data.texts.length, ...again });
      }
      if (largest && database.url) {
        const seconds = await serviceRestart(app.database.url!, dataDir, apiKey, kind);
        serviceRestarts.push({ kind, database: database.name, chunks: data.texts.length, seconds, megabytes: Number.NaN });
      }
      if (kind === "pgvector" && database.url && largest) await besideLargeTenant(app, index as PgvectorIndex, data.texts.length);
      if (kind === "pgvector" && database.url) {
        pgvectorRows.push({
          chunks: data.texts.length,
          recall: found / (k * queryCount),
          hybridP50: percentile(hybridTimes, 0.5),
        });
      }
      console.log(
        `| ${kind} | ${database.name} | ${thousands(data.texts.length)} | ${fixed(built.seconds, 1)} | ${mb(built.megabytes)} ` +
          `| ${restart ? fixed(restart.seconds, 1) : "–"} | ${restart ? mb(restart.megabytes) : "–"} ` +
          `| ${fixed(percentile(vectorTimes, 0.5))} | ${fixed(found / (k * queryCount), 3)} ` +
          `| ${fixed(percentile(hybridTimes, 0.5))} | ${fixed(percentile(hybridTimes, 0.99))} |`,
      );
    } finally {
      if (!restart) await index.stop();
    }
  } finally {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * Knowledge search at 10,000 and 100,000 chunks of one tenant: bank help text (seeded), embedded
 * by the offline embedder and written to the chunks table. Recall@10 is the vector index's against
 * an exact scan of the same vectors; the latency is the whole hybrid search (query embedding,
 * vector and full-text candidates, fusion, reading the chunks) at the retriever's top-k. "Restart"
 * is the memory index started again over its own snapshot; its RSS Δ is the index's memory.
 */
export async function benchKnowledgeSearch(): Promise<void> {
  const { databases, unreachable } = await benchDatabases();
  console.log(`\n### Search (${queryCount} queries, hybrid top ${retrievalTopK})\n`);
  console.log(
    "| index | database | chunks | build (s) | RSS Δ (MB) | restart (s) | restart RSS Δ (MB) | vector p50 (ms) | recall@10 | hybrid p50 (ms) | hybrid p99 (ms) |",
  );
  console.log("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const size of sizes) {
    const started = performance.now();
    const data = corpus(size);
    const embedSeconds = (performance.now() - started) / 1000;
    const asked = queries(data, size + 1);
    for (const database of databases) {
      const largest = size === Math.max(...sizes);
      if (kinds.includes("memory")) await measure("memory", database, data, asked, largest);
      const pgvector = database.url ? await serverHasPgvector(database.url) : size <= pgvectorMaxSize;
      if (kinds.includes("pgvector") && pgvector) await measure("pgvector", database, data, asked, largest);
    }
    console.error(`(${size} chunks embedded in ${embedSeconds.toFixed(1)} s: ${Math.round(size / embedSeconds)} per second)`);
  }
  if (unreachable) console.log(noteRow(11, 1, unreachable));
  printTargets();
  printPgvectorTargets();
}

/** Issue 14's scale row: pgvector on a PostgreSQL server, beside the search targets the memory index met at 100,000. */
function printPgvectorTargets(): void {
  console.log("\n| pgvector on a PostgreSQL server | chunks | measured | target |\n|---|---:|---:|---|");
  if (!pgvectorRows.length) {
    console.log("| not measured: no PostgreSQL server with pgvector (scripts/pgvector-server.sh) | – | – | – |");
  }
  for (const row of pgvectorRows) {
    console.log(`| recall@10 | ${thousands(row.chunks)} | ${fixed(row.recall, 3)} | ≥ 0.95 at 1,000,000 chunks |`);
    console.log(`| hybrid search p50 | ${thousands(row.chunks)} | ${fixed(row.hybridP50)} ms | ≤ 25 ms at 1,000,000 chunks |`);
  }
  for (const row of besideRows) {
    console.log(
      `| recall@10 of a tenant of ${thousands(row.chunks)} chunks beside one of ${thousands(row.beside)} (${row.search}; vector p50 ${fixed(row.p50)} ms) ` +
        `| ${thousands(besideSizes.reduce((sum, size) => sum + size, row.beside))} | ${fixed(row.recall, 3)} | ≥ 0.95 |`,
    );
  }
}

/** Issue 14's rows for the restarts and the memory index, beside their targets. */
function printTargets(): void {
  const figures = (rows: Restart[], value: (r: Restart) => string) =>
    rows.map((r) => `${value(r)} (${r.kind}, ${r.database}, ${thousands(r.chunks)})`).join(", ") || "not measured";
  console.log("\n| memory index | measured | target |\n|---|---|---|");
  console.log(
    `| ready to search after a restart (index) | ${figures(restarts, (r) => `${fixed(r.seconds, 1)} s`)} | ≤ 10 s at 100,000 chunks |`,
  );
  console.log(
    `| ready to search after a restart (service process: start to first search answered) | ${figures(serviceRestarts, (r) => `${fixed(r.seconds, 1)} s`)} | ≤ 10 s at 100,000 chunks |`,
  );
  console.log(
    `| memory of the index (RSS Δ of the restart) | ${figures(restarts, (r) => `${mb(r.megabytes)} MB`)} | ≤ 200 MB at 100,000 chunks |`,
  );
}
