import { randomBytes } from "node:crypto";
import { readdirSync, rmSync } from "node:fs";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { type Database, openDatabase } from "../../src/db/client.js";
import { migrate } from "../../src/db/migrate.js";
import { RememberedSearches } from "../../src/knowledge/remembered-searches.js";
import { createVectorIndex, type VectorIndex, type VectorIndexDeps } from "../../src/knowledge/vector-index.js";
import type { MemoryVectorIndexOptions } from "../../src/knowledge/vector-index-memory.js";
import { efSearch, PgvectorIndex, searchesExactly, tenantGraphName } from "../../src/knowledge/vector-index-pgvector.js";
import { createRealtimeBus, type RealtimeBus } from "../../src/realtime/pubsub.js";
import { createTestDatabase, type TestDatabase, testDatabaseHasPgvector } from "../helpers/database.js";
import { descriptorsIn } from "../helpers/descriptors.js";
import { testTempDir } from "../helpers/temp.js";

const dimensions = 1536;
const logger = pino({ level: "silent" });

/** A seeded PRNG (mulberry32): the same data set on every run. */
function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

function normalise(v: Float32Array): Float32Array {
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  return v.map((x) => x / norm);
}

const randomUnit = (random: () => number) => normalise(Float32Array.from({ length: dimensions }, () => random() - 0.5));
const cosine = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);

interface Point {
  id: string;
  cluster: number;
  vector: Float32Array;
}

/** `clusters` groups of `size` points around random centres: near each other, far from the other groups. */
function clustered(prefix: string, clusters: number, size: number, seed: number): Point[] {
  const random = prng(seed);
  const points: Point[] = [];
  for (let c = 0; c < clusters; c++) {
    const centre = randomUnit(random);
    for (let i = 0; i < size; i++) {
      const noise = randomUnit(random);
      points.push({ id: `${prefix}_${c}_${i}`, cluster: c, vector: normalise(centre.map((x, d) => x + 0.8 * noise[d]!)) });
    }
  }
  return points;
}

const exactNearest = (points: Point[], query: Float32Array, k: number) =>
  points
    .map((p) => ({ id: p.id, score: cosine(p.vector, query) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, k);

async function addTenant(db: Database, tenantId: string): Promise<void> {
  await db.sql.query(`INSERT INTO tenants (id, name, updated_at) VALUES ($1, $1, now())`, [tenantId]);
  await db.sql.query(
    `INSERT INTO knowledge_sources (id, tenant_id, type, title, updated_at) VALUES ($1, $2, 'manual', 'Test', now())`,
    [`src_${tenantId}`, tenantId],
  );
}

/** What ingest does: writes the rows with their canonical embedding (or rewrites them), and nothing else. */
async function writeChunks(db: Database, tenantId: string, points: Point[]): Promise<void> {
  for (const p of points) {
    await db.sql.query(
      `INSERT INTO chunks (id, tenant_id, source_id, position, content, token_count, content_hash, embedder, embedding)
       VALUES ($1, $2, $3, 0, $1, 1, $1, 'test', $4)
       ON CONFLICT (id) DO UPDATE SET embedding = EXCLUDED.embedding`,
      [p.id, tenantId, `src_${tenantId}`, Array.from(p.vector)],
    );
  }
}

async function deleteChunks(db: Database, ids: string[]): Promise<void> {
  await db.sql.query(`DELETE FROM chunks WHERE id = ANY($1::text[])`, [ids]);
}

const serverMode = Boolean(process.env.DATABASE_URL);
// Debian's PostgreSQL has no pgvector (DESIGN §5): pgvector is tested on PGlite, and on a server only
// where it has the extension (CI's `scripts/pgvector-server.sh`).
const pgvectorHere = await testDatabaseHasPgvector();
const implementations = [
  { name: "memory", VECTOR_INDEX: "memory" as const },
  ...(pgvectorHere ? [{ name: "pgvector", VECTOR_INDEX: "pgvector" as const }] : []),
];

describe.each(implementations)("the $name vector index", ({ VECTOR_INDEX }) => {
  let testDb: TestDatabase;
  let db: Database;
  let deps: VectorIndexDeps;
  let index: VectorIndex;
  const tenantA = clustered("a", 6, 12, 1);
  const tenantB = clustered("b", 2, 10, 2);

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = await openDatabase(testDb);
    await migrate(db.sql);
    deps = { db, realtime: createRealtimeBus(undefined), logger, searches: new RememberedSearches() };
    index = await createVectorIndex(deps, { VECTOR_INDEX });
    await index.start();
    for (const [tenantId, points] of [
      ["ten_a", tenantA],
      ["ten_b", tenantB],
    ] as const) {
      await addTenant(db, tenantId);
      await writeChunks(db, tenantId, points);
      await index.added(
        tenantId,
        points.map((p) => ({ id: p.id, embedding: p.vector })),
      );
    }
    await addTenant(db, "ten_empty");
  });
  afterAll(async () => {
    await index?.stop();
    await db?.close();
    await testDb?.drop();
  });

  it("is the implementation asked for", () => {
    expect(index.kind).toBe(VECTOR_INDEX);
  });

  it("finds the nearest neighbours, best first, with cosine similarities", async () => {
    for (const probe of [tenantA[0]!, tenantA[30]!, tenantA[71]!]) {
      const hits = await index.search("ten_a", probe.vector, 10);
      expect(hits).toHaveLength(10);
      expect(hits[0]).toMatchObject({ chunkId: probe.id });
      expect(hits[0]!.score).toBeCloseTo(1, 2);
      const exact = exactNearest(tenantA, probe.vector, 10);
      const inCluster = new Set(tenantA.filter((p) => p.cluster === probe.cluster).map((p) => p.id));
      for (const hit of hits) expect(inCluster.has(hit.chunkId), hit.chunkId).toBe(true);
      const recall = hits.filter((h) => exact.some((e) => e.id === h.chunkId)).length / 10;
      expect(recall).toBeGreaterThanOrEqual(0.9);
      const exactScore = new Map(tenantA.map((p) => [p.id, cosine(p.vector, probe.vector)]));
      for (const hit of hits) expect(hit.score).toBeCloseTo(exactScore.get(hit.chunkId)!, 2);
      expect(hits.map((h) => h.score)).toEqual([...hits.map((h) => h.score)].sort((x, y) => y - x));
    }
  });

  it("gives the cosine similarity of the chunks asked for that the tenant has, and nothing for the others", async () => {
    const probe = tenantA[5]!.vector;
    const asked = [tenantA[5]!, tenantA[40]!, tenantA[70]!];
    const scores = await index.similarities("ten_a", probe, [...asked.map((p) => p.id), tenantB[3]!.id, "a_never_existed"]);
    expect([...scores.keys()].sort()).toEqual(asked.map((p) => p.id).sort());
    for (const p of asked) expect(scores.get(p.id)).toBeCloseTo(cosine(p.vector, probe), 2);
    expect(await index.similarities("ten_b", probe, [tenantA[5]!.id])).toEqual(new Map());
    expect(await index.similarities("ten_a", new Float32Array(probe.length), [tenantA[5]!.id])).toEqual(new Map());
  });

  it("never shows a tenant another tenant's vectors", async () => {
    const hits = await index.search("ten_b", tenantA[0]!.vector, 50);
    expect(hits).toHaveLength(tenantB.length);
    for (const hit of hits) expect(hit.chunkId).toMatch(/^b_/);
    expect(await index.search("ten_empty", tenantA[0]!.vector, 5)).toEqual([]);
    expect(await index.search("ten_unknown", tenantA[0]!.vector, 5)).toEqual([]);
  });

  it("forgets removed vectors, ignores unknown ids, and takes a rewritten vector", async () => {
    const gone = [tenantB[0]!.id, tenantB[1]!.id];
    await deleteChunks(db, gone);
    await index.removed("ten_b", [...gone, "b_never_existed"]);
    let hits = await index.search("ten_b", tenantB[0]!.vector, 20);
    expect(hits).toHaveLength(tenantB.length - 2);
    expect(hits.map((h) => h.chunkId)).not.toContain(gone[0]);
    expect(hits.map((h) => h.chunkId)).not.toContain(gone[1]);

    // Rewritten into the other cluster: found there, and no longer near its old neighbours.
    const moved = { ...tenantB[2]!, vector: tenantB[15]!.vector.map((x, i) => x + 0.01 * tenantB[2]!.vector[i]!) };
    await writeChunks(db, "ten_b", [moved]);
    await index.added("ten_b", [{ id: moved.id, embedding: Array.from(moved.vector) }]);
    hits = await index.search("ten_b", moved.vector, 3);
    expect(hits.map((h) => h.chunkId)).toContain(moved.id);
    hits = await index.search("ten_b", tenantB[3]!.vector, 7);
    expect(hits.map((h) => h.chunkId)).not.toContain(moved.id);
  });

  it("refuses vectors of the wrong size", async () => {
    await expect(index.search("ten_a", new Float32Array(3), 5)).rejects.toThrow(/3 dimensions/);
    await expect(index.added("ten_a", [{ id: "x", embedding: [1, 0] }])).rejects.toThrow(/2 dimensions/);
  });

  it("when started, finds what was written to the canonical column before", async () => {
    await addTenant(db, "ten_before");
    const before = clustered("c", 2, 5, 3);
    await writeChunks(db, "ten_before", before);
    const fresh = await createVectorIndex(deps, { VECTOR_INDEX });
    await fresh.start();
    try {
      const hits = await fresh.search("ten_before", before[7]!.vector, 3);
      expect(hits[0]!.chunkId).toBe(before[7]!.id);
      expect((await fresh.search("ten_a", tenantA[5]!.vector, 1))[0]!.chunkId).toBe(tenantA[5]!.id);
    } finally {
      await fresh.stop();
    }
  });

  // A policy that never compares a tenant's rows exactly unless the graph came back short: these tenants are small.
  const graphOnly = { always: 0, atMost: 0, belowShare: 0 };

  it.runIf(VECTOR_INDEX === "pgvector")("searches through the HNSW index despite the tenant filter", async () => {
    const plan = await new PgvectorIndex(db, graphOnly).explain("ten_a", tenantA[0]!.vector, 10);
    expect(plan).toMatch(/Index Scan using chunks_embedding_hnsw_idx on chunks/);
    expect(plan).toMatch(/Filter: \(tenant_id = /);
    expect(plan).not.toMatch(/Sort|Seq Scan/);
  });

  it.runIf(VECTOR_INDEX === "pgvector")("compares a small tenant's own rows exactly, without the HNSW index", async () => {
    const plan = await (index as PgvectorIndex).explain("ten_a", tenantA[0]!.vector, 10);
    expect(plan).not.toMatch(/chunks_embedding_hnsw_idx/);
    expect(plan).toMatch(/Sort/);
    for (const probe of [tenantA[3]!, tenantA[44]!]) {
      const hits = await index.search("ten_a", probe.vector, 10);
      expect(hits.map((h) => h.chunkId)).toEqual(exactNearest(tenantA, probe.vector, 10).map((e) => e.id));
    }
  });

  it.runIf(VECTOR_INDEX === "pgvector")("compares exactly when the graph finds fewer than asked for", async () => {
    const graph = new PgvectorIndex(db, graphOnly);
    const live = (await index.search("ten_b", tenantB[4]!.vector, 50)).map((h) => h.chunkId);
    const hits = await graph.search("ten_b", tenantB[4]!.vector, 50);
    expect(hits.map((h) => h.chunkId)).toEqual(live);
    expect(hits.length).toBeGreaterThan(10);
    expect(hits.map((h) => h.score)).toEqual([...hits.map((h) => h.score)].sort((x, y) => y - x));
  });

  it.runIf(VECTOR_INDEX === "pgvector")("counts a tenant's chunks again once it has written or removed some", async () => {
    await addTenant(db, "ten_growing");
    const growing = clustered("g", 1, 8, 4);
    const upToTen = new PgvectorIndex(db, { always: 10, atMost: 0, belowShare: 0 });
    await writeChunks(db, "ten_growing", growing.slice(0, 6));
    await upToTen.added("ten_growing", []);
    expect(await upToTen.explain("ten_growing", growing[0]!.vector, 3)).not.toMatch(/hnsw/);
    await writeChunks(db, "ten_growing", growing.slice(6));
    await writeChunks(db, "ten_growing", clustered("h", 1, 4, 5));
    expect(await upToTen.explain("ten_growing", growing[0]!.vector, 3)).not.toMatch(/hnsw/);
    await upToTen.added("ten_growing", []);
    expect(await upToTen.explain("ten_growing", growing[0]!.vector, 3)).toMatch(/chunks_embedding_hnsw_idx/);
    await deleteChunks(db, [growing[0]!.id, growing[1]!.id]);
    await upToTen.removed("ten_growing", [growing[0]!.id, growing[1]!.id]);
    expect(await upToTen.explain("ten_growing", growing[2]!.vector, 3)).not.toMatch(/hnsw/);
  });

  it.runIf(VECTOR_INDEX === "pgvector")(
    "gives the largest tenants a graph of their own, which the search takes, and drops it once they have shrunk",
    async () => {
      const ownGraphs = async () =>
        (
          await db.sql.query<{ indexname: string }>(
            `SELECT indexname FROM pg_indexes WHERE tablename = 'chunks' AND indexname LIKE 'chunks_hnsw_tenant_%' ORDER BY 1`,
          )
        ).map((r) => r.indexname);
      const large = clustered("l", 2, 33, 6);
      await addTenant(db, "ten_large");
      await writeChunks(db, "ten_large", large);
      const policy = { from: 60, keepFrom: 40, most: 1, mostShare: 0.75 };
      const one = new PgvectorIndex(db, graphOnly, policy);
      // ten_a (72 chunks) is the larger of the two over 60; ten_b (18) is under.
      expect(await one.upkeep()).toEqual({ built: [tenantGraphName("ten_a")], dropped: [] });
      expect(await ownGraphs()).toEqual([tenantGraphName("ten_a")]);
      expect(await one.upkeep()).toEqual({ built: [], dropped: [] });
      const plan = await one.explain("ten_a", tenantA[0]!.vector, 10);
      expect(plan).toMatch(new RegExp(`Index Scan using ${tenantGraphName("ten_a")} on chunks`));
      const hits = await one.search("ten_a", tenantA[9]!.vector, 10);
      const exact = exactNearest(tenantA, tenantA[9]!.vector, 10).map((e) => e.id);
      expect(hits.filter((h) => exact.includes(h.chunkId)).length).toBeGreaterThanOrEqual(9);
      expect(await one.explain("ten_large", large[0]!.vector, 10)).toMatch(/chunks_embedding_hnsw_idx/);

      const two = new PgvectorIndex(db, { always: 50, atMost: 0, belowShare: 0 }, { ...policy, most: 2 });
      expect(await two.upkeep()).toEqual({ built: [tenantGraphName("ten_large")], dropped: [] });
      // Down to 46 chunks: under the size that gives a graph, over the one that keeps it; searched through it, not exactly.
      await deleteChunks(
        db,
        large.slice(0, 20).map((p) => p.id),
      );
      await two.removed("ten_large", []);
      expect(await two.upkeep()).toEqual({ built: [], dropped: [] });
      expect(await two.explain("ten_large", large[30]!.vector, 10)).toMatch(tenantGraphName("ten_large"));
      const scans = async () =>
        (
          await db.sql.query<{ scans: number }>(
            `SELECT coalesce(sum(idx_scan), 0)::int AS scans FROM pg_stat_user_indexes WHERE indexrelname = $1`,
            [tenantGraphName("ten_large")],
          )
        )[0]!.scans;
      const before = await scans();
      expect((await two.search("ten_large", large[30]!.vector, 10))[0]!.chunkId).toBe(large[30]!.id);
      await expect.poll(scans, { timeout: 5_000 }).toBeGreaterThan(before);
      await deleteChunks(
        db,
        large.slice(20, 30).map((p) => p.id),
      );
      expect(await two.upkeep()).toEqual({ built: [], dropped: [tenantGraphName("ten_large")] });
      expect((await two.search("ten_large", large[40]!.vector, 5))[0]!.chunkId).toBe(large[40]!.id);

      const none = new PgvectorIndex(db, graphOnly, { ...policy, most: 0 });
      expect(await none.upkeep()).toEqual({ built: [], dropped: [tenantGraphName("ten_a")] });
      expect(await ownGraphs()).toEqual([]);
      // ten_a now holds about half of all the chunks: the graph of all is mostly its own already.
      expect(await new PgvectorIndex(db, graphOnly, { ...policy, mostShare: 0.3 }).upkeep()).toEqual({ built: [], dropped: [] });
      expect(await one.upkeep()).toEqual({ built: [tenantGraphName("ten_a")], dropped: [] });
      await none.upkeep();
    },
  );
});

describe("pgvector's choice between the shared graph and a tenant's own rows", () => {
  it("compares a few hundred chunks exactly, a few thousand when they are under a hundredth of the graph, and no more", () => {
    expect(searchesExactly(0, 0)).toBe(true);
    expect(searchesExactly(500, 500)).toBe(true);
    expect(searchesExactly(2_000, 1_000_000)).toBe(true);
    expect(searchesExactly(2_000, 150_000)).toBe(false);
    expect(searchesExactly(5_000, 10_000_000)).toBe(true);
    expect(searchesExactly(5_001, 10_000_000)).toBe(false);
  });
});

describe("pgvector's search breadth (hnsw.ef_search)", () => {
  it("is 200 up to 100,000 chunks, grows with the logarithm of the graph's rows, and is at least 4k within pgvector's bound", () => {
    expect([0, 10_000, 100_000].map((rows) => efSearch(20, rows))).toEqual([200, 200, 200]);
    expect(efSearch(20, 1_000_000)).toBe(400);
    expect(efSearch(20, 10_000_000)).toBe(600);
    expect(efSearch(100, 0)).toBe(400);
    expect(efSearch(500, 0)).toBe(1000);
    expect(efSearch(20, 1e12)).toBe(1000);
  });
});

describe("a memory index restarted over its snapshot", () => {
  let testDb: TestDatabase;
  let db: Database;
  let dir: string;
  const points = clustered("s", 4, 10, 5);
  const others = clustered("o", 2, 6, 6);
  const tenant = "ten_snap";
  const otherTenant = "ten_snap_other";
  const open = async (snapshotDir?: string, log = logger) => {
    const index = await createVectorIndex(
      { db, realtime: createRealtimeBus(undefined), logger: log, searches: new RememberedSearches() },
      { VECTOR_INDEX: "memory" },
      { snapshotDir },
    );
    await index.start();
    return index;
  };
  const ids = (hits: Array<{ chunkId: string }>) => hits.map((h) => h.chunkId);

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = await openDatabase(testDb);
    await migrate(db.sql);
    dir = testTempDir("parley-vectors");
    await addTenant(db, tenant);
    await addTenant(db, otherTenant);
  });
  afterAll(async () => {
    await db?.close();
    await testDb?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("answers as a fresh build does, with what another instance changed while it was down", async () => {
    const kept = points.slice(0, 36);
    await writeChunks(db, tenant, kept);
    await writeChunks(db, otherTenant, others);
    const first = await open(dir);
    expect(ids(await first.search(tenant, kept[0]!.vector, 1))).toEqual([kept[0]!.id]);
    await first.stop();
    expect(descriptorsIn(dir)).toBe(0);
    expect(readdirSync(dir)).toEqual(expect.arrayContaining([`${tenant}.json`, `${otherTenant}.json`]));

    // While it is down, another instance (without this directory) adds four chunks and deletes four.
    const other = await open();
    const added = points.slice(36);
    const deleted = kept.slice(0, 4).map((p) => p.id);
    await writeChunks(db, tenant, added);
    await other.added(
      tenant,
      added.map((p) => ({ id: p.id, embedding: p.vector })),
    );
    await deleteChunks(db, deleted);
    await other.removed(tenant, deleted);
    await other.stop();

    const lines: Array<Record<string, unknown>> = [];
    const restarted = await open(dir, pino({ level: "info" }, { write: (line: string) => lines.push(JSON.parse(line)) }));
    const fresh = await open();
    try {
      expect(lines).toContainEqual(
        expect.objectContaining({
          msg: "loaded a tenant's vector index from its snapshot",
          tenantId: tenant,
          added: 4,
          removed: 4,
        }),
      );
      for (const probe of [points[5]!, points[17]!, points[38]!, points[0]!]) {
        const [got, want] = [await restarted.search(tenant, probe.vector, 10), await fresh.search(tenant, probe.vector, 10)];
        expect(ids(got)).toEqual(ids(want));
        for (const [i, hit] of got.entries()) expect(hit.score).toBeCloseTo(want[i]!.score, 5);
      }
      const all = ids(await restarted.search(tenant, points[0]!.vector, 100)).sort();
      expect(all).toEqual([...kept.slice(4), ...added].map((p) => p.id).sort());
      expect(ids(await restarted.search(otherTenant, points[0]!.vector, 100)).sort()).toEqual(others.map((p) => p.id).sort());
    } finally {
      await restarted.stop();
      await fresh.stop();
    }
    expect(descriptorsIn(dir)).toBe(0);
  });
});

describe("createVectorIndex", () => {
  let testDb: TestDatabase;
  let db: Database;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = await openDatabase(testDb);
    await migrate(db.sql);
  });
  afterAll(async () => {
    await db?.close();
    await testDb?.drop();
  });

  it.runIf(!serverMode || !pgvectorHere)("chooses memory on PGlite and on a server without pgvector", async () => {
    const deps = { db, realtime: createRealtimeBus(undefined), logger, searches: new RememberedSearches() };
    expect((await createVectorIndex(deps, loadConfig({}))).kind).toBe("memory");
  });

  it.runIf(serverMode && pgvectorHere)("chooses pgvector on a server with the extension", async () => {
    const deps = { db, realtime: createRealtimeBus(undefined), logger, searches: new RememberedSearches() };
    expect((await createVectorIndex(deps, loadConfig({}))).kind).toBe("pgvector");
    expect((await createVectorIndex(deps, loadConfig({ VECTOR_INDEX: "memory" }))).kind).toBe("memory");
  });

  it.runIf(serverMode && !pgvectorHere)("refuses pgvector on a server without the extension", async () => {
    const deps = { db, realtime: createRealtimeBus(undefined), logger, searches: new RememberedSearches() };
    const index = await createVectorIndex(deps, loadConfig({ VECTOR_INDEX: "pgvector" }));
    await expect(index.start()).rejects.toThrow(/needs the pgvector extension/);
  });

  const indexes = () =>
    db.sql
      .query<{ indexname: string }>(`SELECT indexname FROM pg_indexes WHERE tablename = 'chunks'`)
      .then((rows) => rows.map((r) => r.indexname));

  it.runIf(!serverMode)("leaves the HNSW index out of PGlite's migrations and builds it when pgvector is chosen", async () => {
    expect(await indexes()).not.toContain("chunks_embedding_hnsw_idx");
    await new PgvectorIndex(db).start();
    expect(await indexes()).toContain("chunks_embedding_hnsw_idx");
  });

  it.runIf(serverMode && pgvectorHere)("has the HNSW index from the migrations on a server with pgvector", async () => {
    expect(await indexes()).toContain("chunks_embedding_hnsw_idx");
  });
});

/**
 * Waits until `to` hears what `from` publishes: Redis subscriptions are established asynchronously,
 * and an announcement made before would be missed by design.
 */
async function untilConnected(from: RealtimeBus, to: RealtimeBus): Promise<void> {
  const subscription = to.pubsub.subscribe("vectors:changed");
  const probe = { tenantId: `probe_${randomBytes(4).toString("hex")}`, added: [], removed: [], version: 0, origin: "probe" };
  const timer = setInterval(() => void from.pubsub.publish("vectors:changed", probe), 50);
  from.pubsub.publish("vectors:changed", probe);
  // Other test files share the Redis server and announce their own changes: only this probe proves the path.
  for await (const change of subscription) if (change.tenantId === probe.tenantId) break;
  clearInterval(timer);
}

const buses = [
  { name: "one in-process bus", redis: false },
  ...(process.env.REDIS_URL ? [{ name: "two Redis buses", redis: true }] : []),
];

describe.each(buses)("two memory indexes on one database, through $name", ({ redis }) => {
  let testDb: TestDatabase;
  let db: Database;
  let busA: RealtimeBus;
  let busB: RealtimeBus;
  const instances: VectorIndex[] = [];
  const points = clustered("r", 3, 8, 4);
  // Unique: another run of this file may share the Redis server, and its announcements would reach these indexes.
  const tenant = `ten_shared_${randomBytes(4).toString("hex")}`;

  const instance = async (bus: RealtimeBus, options: MemoryVectorIndexOptions) => {
    const index = await createVectorIndex(
      { db, realtime: bus, logger, searches: new RememberedSearches() },
      { VECTOR_INDEX: "memory" },
      options,
    );
    await index.start();
    instances.push(index);
    return index;
  };
  const idsFound = async (index: VectorIndex) => (await index.search(tenant, points[0]!.vector, 50)).map((h) => h.chunkId).sort();

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = await openDatabase(testDb);
    await migrate(db.sql);
    await addTenant(db, tenant);
    busA = redis ? createRealtimeBus(process.env.REDIS_URL, logger) : createRealtimeBus(undefined);
    busB = redis ? createRealtimeBus(process.env.REDIS_URL, logger) : busA;
  });
  afterAll(async () => {
    for (const index of instances) await index.stop();
    await busA?.close();
    if (busB !== busA) await busB?.close();
    await db?.close();
    await testDb?.drop();
  });

  it("apply each other's additions and removals as they are announced", async () => {
    // Reconciliation with the database is made too slow to matter here: only announcements count.
    const a = await instance(busA, { reconcileIntervalMs: 3_600_000, gapGraceMs: 3_600_000 });
    const b = await instance(busB, { reconcileIntervalMs: 3_600_000, gapGraceMs: 3_600_000 });
    await untilConnected(busA, busB);
    await untilConnected(busB, busA);
    expect(await idsFound(b)).toEqual([]);

    const first = points.slice(0, 12);
    await writeChunks(db, tenant, first);
    await a.added(
      tenant,
      first.map((p) => ({ id: p.id, embedding: p.vector })),
    );
    await expect.poll(() => idsFound(b)).toEqual(first.map((p) => p.id).sort());

    const gone = first.slice(0, 4).map((p) => p.id);
    await deleteChunks(db, gone);
    await b.removed(tenant, gone);
    const left = first
      .slice(4)
      .map((p) => p.id)
      .sort();
    await expect.poll(() => idsFound(a)).toEqual(left);
    expect(await idsFound(b)).toEqual(left);
  });

  it("rebuild a tenant when they notice a missed change", async () => {
    const watcher = await instance(busB, { reconcileIntervalMs: 3_600_000, gapGraceMs: 100 });
    const before = await idsFound(watcher);
    // A writer whose announcements nobody hears: the watcher misses this change entirely...
    const deaf = await instance(createRealtimeBus(undefined), { reconcileIntervalMs: 3_600_000 });
    const missed = points.slice(12, 16);
    await writeChunks(db, tenant, missed);
    await deaf.added(
      tenant,
      missed.map((p) => ({ id: p.id, embedding: p.vector })),
    );
    // ...and sees the gap when the next change is announced.
    const writer = await instance(busA, { reconcileIntervalMs: 3_600_000 });
    await untilConnected(busA, busB);
    const next = points.slice(16, 18);
    await writeChunks(db, tenant, next);
    await writer.added(
      tenant,
      next.map((p) => ({ id: p.id, embedding: p.vector })),
    );
    const expected = [...before, ...missed.map((p) => p.id), ...next.map((p) => p.id)].sort();
    await expect.poll(() => idsFound(watcher)).toEqual(expected);
  });

  it("catch up with the database when the last announcement was lost", async () => {
    const watcher = await instance(busB, { reconcileIntervalMs: 100, gapGraceMs: 100 });
    const before = await idsFound(watcher);
    const deaf = await instance(createRealtimeBus(undefined), { reconcileIntervalMs: 3_600_000 });
    const last = points.slice(18);
    await writeChunks(db, tenant, last);
    await deaf.added(
      tenant,
      last.map((p) => ({ id: p.id, embedding: p.vector })),
    );
    await expect.poll(() => idsFound(watcher)).toEqual([...before, ...last.map((p) => p.id)].sort());
  });
});
