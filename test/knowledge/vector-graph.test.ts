import { copyFileSync, renameSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { embeddingDimensions, HashingEmbedder } from "../../src/ai/embeddings.js";
import { VectorFile } from "../../src/knowledge/vector-file.js";
import { TenantVectors } from "../../src/knowledge/vector-graph.js";
import { bankText } from "../bench/bank-text.js";
import { tempDirEachTest } from "../helpers/temp.js";

/** A unit vector along axes `a` and `b`: vectors sharing an axis are alike, others orthogonal. */
function along(a: number, b: number): Float32Array {
  const v = new Float32Array(embeddingDimensions);
  v[a] = Math.SQRT1_2;
  v[b] = Math.SQRT1_2;
  return v;
}

function dot(rows: Float32Array, row: number, query: Float32Array): number {
  let sum = 0;
  for (let d = 0, at = row * embeddingDimensions; d < embeddingDimensions; d++, at++) sum += rows[at]! * query[d]!;
  return sum;
}

describe("a tenant's vectors", () => {
  const dir = tempDirEachTest("parley-vector-graph");

  it("score their candidates from the rows file now at its path after it was rewritten while open", () => {
    const ids = Array.from({ length: 10 }, (_, i) => `chk_${i}`);
    const points = ids.map((_, i) => along(2 * i, 2 * i + 1));
    const all = new Float32Array(ids.length * embeddingDimensions);
    for (const [i, p] of points.entries()) all.set(p, i * embeddingDimensions);
    const vectors = new TenantVectors(new VectorFile(join(dir(), "rows.f32")));
    vectors.upsert(ids, all);
    const [hit] = vectors.search(points[3]!, 1);
    expect(hit).toEqual({ chunkId: "chk_3", score: expect.closeTo(1, 5) });

    // The file rewritten beside and renamed over the one open, with chk_3's row now chk_4's vector.
    const { keys, ids: savedIds } = vectors.save(join(dir(), "graph.usearch"));
    const rewritten = join(dir(), "rows.f32.new");
    copyFileSync(vectors.file.path, rewritten);
    const copy = new VectorFile(rewritten);
    copy.write([keys[savedIds.indexOf("chk_3")]!], points[4]!);
    copy.close();
    renameSync(rewritten, vectors.file.path);

    const scores = new Map(vectors.search(points[4]!, 10).map((h) => [h.chunkId, h.score]));
    expect(scores.get("chk_4")).toBeCloseTo(1, 5);
    expect(scores.get("chk_3")).toBeCloseTo(1, 5);
    expect(vectors.search(points[3]!, 10).find((h) => h.chunkId === "chk_3")?.score ?? 0).toBeCloseTo(0, 5);
    vectors.file.close();
  });

  it("find nearly all of a query's true nearest chunks, with their exact cosine", () => {
    const text = bankText(3);
    const embedder = new HashingEmbedder();
    const ids = Array.from({ length: 2_000 }, (_, i) => `chk_${i}`);
    const all = new Float32Array(ids.length * embeddingDimensions);
    for (const i of ids.keys()) all.set(embedder.embedOne(text.chunk()), i * embeddingDimensions);
    const vectors = new TenantVectors(new VectorFile(join(dir(), "rows.f32")));
    vectors.upsert(ids, all);
    const k = 20;
    let found = 0;
    for (let q = 0; q < 30; q++) {
      const query = embedder.embedOne(text.query());
      // The vectors are unit length: cosine is the dot product.
      const exact = ids.map((id, i) => ({ id, score: dot(all, i, query) })).sort((a, b) => b.score - a.score);
      const scoreOf = new Map(exact.map((e) => [e.id, e.score]));
      const hits = vectors.search(query, k);
      expect(hits).toHaveLength(k);
      for (const hit of hits) expect(hit.score).toBeCloseTo(scoreOf.get(hit.chunkId)!, 4);
      const truth = new Set(exact.slice(0, k).map((e) => e.id));
      found += hits.filter((hit) => truth.has(hit.chunkId)).length;
    }
    expect(found / (30 * k)).toBeGreaterThan(0.95);

    // Loaded from a snapshot, the rows' lengths are summed as they are first read: the same scores to the last bit.
    const query = embedder.embedOne(text.query());
    const saved = vectors.save(join(dir(), "graph.usearch"));
    const loaded = TenantVectors.load(join(dir(), "graph.usearch"), vectors.file, saved);
    expect(loaded.search(query, k)).toEqual(vectors.search(query, k));
    expect(loaded.similarities(query, ids.slice(0, 50))).toEqual(vectors.similarities(query, ids.slice(0, 50)));
    vectors.file.close();
  });
});
