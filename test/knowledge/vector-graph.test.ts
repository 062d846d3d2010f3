import { copyFileSync, renameSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { embeddingDimensions } from "../../src/ai/embeddings.js";
import { VectorFile } from "../../src/knowledge/vector-file.js";
import { TenantVectors } from "../../src/knowledge/vector-graph.js";
import { tempDirEachTest } from "../helpers/temp.js";

/** A unit vector along axes `a` and `b`: vectors sharing an axis are alike, others orthogonal. */
function along(a: number, b: number): Float32Array {
  const v = new Float32Array(embeddingDimensions);
  v[a] = Math.SQRT1_2;
  v[b] = Math.SQRT1_2;
  return v;
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
});
