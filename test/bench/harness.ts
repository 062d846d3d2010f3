import { createHash } from "node:crypto";
import pg from "pg";
import { HashingEmbedder } from "../../src/ai/embeddings.js";
import { newId } from "../../src/db/ids.js";
import { countTokens } from "../../src/knowledge/chunk.js";
import type { Services } from "../../src/services.js";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { bankText } from "./bank-text.js";

/** Where a suite runs: the embedded PGlite, or a fresh database on a PostgreSQL server. */
export interface BenchDatabase {
  name: "PGlite" | "PostgreSQL";
  url?: string;
}

// Both modes in one run, so their rows sit side by side. BENCH_DATABASE_URL="" leaves PostgreSQL out.
const postgresUrl = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

/** Sizes from a comma-separated environment variable, e.g. BENCH_VECTOR_SIZES=2000 for a quick run. */
export function sizesFrom(variable: string, fallback: number[]): number[] {
  const value = process.env[variable];
  return value ? value.split(",").map((s) => Number(s.replaceAll("_", ""))) : fallback;
}

export function numberFrom(variable: string, fallback: number): number {
  const value = process.env[variable];
  return value ? Number(value.replaceAll("_", "")) : fallback;
}

/**
 * The databases to measure on. PostgreSQL is checked first: when it cannot be reached, `print` puts a
 * note row in the table rather than the suite failing after PGlite's rows.
 */
export async function benchDatabases(): Promise<{ databases: BenchDatabase[]; unreachable: string | null }> {
  const databases: BenchDatabase[] = [{ name: "PGlite" }];
  if (!postgresUrl) return { databases, unreachable: "not measured (BENCH_DATABASE_URL is empty)" };
  const client = new pg.Client({ connectionString: postgresUrl, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    databases.push({ name: "PostgreSQL", url: postgresUrl });
    return { databases, unreachable: null };
  } catch (err) {
    const server = new URL(postgresUrl);
    return { databases, unreachable: `not measured: ${server.host} unreachable (${(err as Error).message})` };
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A table row saying why the PostgreSQL rows are missing, filling the other columns with dashes. */
export function noteRow(columns: number, databaseColumn: number, note: string): string {
  const cells = Array.from({ length: columns }, (_, i) =>
    i === databaseColumn ? "PostgreSQL" : i === databaseColumn + 1 ? note : "–",
  );
  return `| ${cells.join(" | ")} |`;
}

/**
 * The service in this process as the tests start it, on a fresh database of `database`: startTestApp
 * creates (and on close drops) its database on the server DATABASE_URL names, or PGlite without one.
 */
export async function startBenchApp(database: BenchDatabase, env: Record<string, string> = {}): Promise<TestApp> {
  const saved = process.env.DATABASE_URL;
  if (database.url) process.env.DATABASE_URL = database.url;
  else delete process.env.DATABASE_URL;
  try {
    // Benchmarks measure the service, not the rate limiter that would refuse their load.
    return await startTestApp({ LOG_LEVEL: "silent", RATE_LIMIT_MAX: "100000000", ...env });
  } finally {
    if (saved === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = saved;
  }
}

/** A knowledge base as the ingest code would have stored it: texts and their offline embeddings. */
export interface Corpus {
  texts: string[];
  /** Every chunk's embedding back to back. */
  vectors: Float32Array;
  dimensions: number;
}

const corpora = new Map<number, Corpus>();

/** `size` chunks of bank help text embedded by the offline embedder; made once per size and process. */
export function corpus(size: number): Corpus {
  let made = corpora.get(size);
  if (!made) {
    const text = bankText(size);
    const embedder = new HashingEmbedder();
    const texts = Array.from({ length: size }, () => text.chunk());
    const vectors = new Float32Array(size * embedder.dimensions);
    for (const [i, t] of texts.entries()) vectors.set(embedder.embedOne(t), i * embedder.dimensions);
    made = { texts, vectors, dimensions: embedder.dimensions };
    corpora.set(size, made);
  }
  return made;
}

export const embeddingOf = (data: Corpus, i: number) => data.vectors.subarray(i * data.dimensions, (i + 1) * data.dimensions);

/**
 * Writes the corpus into the real chunks table as one manual source of the tenant, straight through
 * SQL: ingesting 100,000 chunks through the chunker would measure the chunker, which the ingest
 * benchmark does on its own. Returns the chunk ids in corpus order. The vector index is not told:
 * callers build or load it afterwards, which is what they measure.
 */
export async function loadChunks(services: Services, tenantId: string, data: Corpus): Promise<string[]> {
  const sourceId = newId("src");
  await services.db.prisma.knowledgeSource.create({
    data: { id: sourceId, tenantId, type: "manual", title: "Help centre", status: "ready", pages: 1 },
  });
  const ids = data.texts.map(() => newId("chk"));
  const embedder = new HashingEmbedder().name;
  const batch = 200;
  let tokens = 0;
  const insert = async (start: number) => {
    const params: unknown[] = [tenantId, sourceId, embedder];
    const values: string[] = [];
    for (let i = start; i < Math.min(start + batch, ids.length); i++) {
      const content = data.texts[i]!;
      const count = countTokens(content);
      tokens += count;
      const p = params.length;
      values.push(`($${p + 1}, $1, $2, ${i}, $${p + 2}, ${count}, 'Help centre', $${p + 3}, $3, $${p + 4}::real[])`);
      params.push(ids[i], content, createHash("sha256").update(content).digest("hex"), `{${embeddingOf(data, i).join(",")}}`);
    }
    await services.db.sql.query(
      `INSERT INTO chunks (id, tenant_id, source_id, position, content, token_count, title, content_hash, embedder, embedding)
       VALUES ${values.join(",")}`,
      params,
    );
  };
  // Two statements in flight: a server parses the embeddings' text in two backends (a million chunks take
  // half an hour in one); PGlite runs them one after the other.
  const lanes = 2;
  await Promise.all(
    Array.from({ length: lanes }, async (_, lane) => {
      for (let start = lane * batch; start < ids.length; start += lanes * batch) await insert(start);
    }),
  );
  await services.db.prisma.knowledgeSource.update({ where: { id: sourceId }, data: { chunks: ids.length, tokens } });
  return ids;
}

export const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

/** Milliseconds of each call of `run`, sorted. */
export async function latencies<T>(items: T[], run: (item: T) => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (const item of items) {
    const started = performance.now();
    await run(item);
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b);
}

export const fixed = (value: number, digits = 2) => value.toFixed(digits);
export const thousands = (value: number) => value.toLocaleString("en");
