import { existsSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { embeddingDimensions } from "../../src/ai/embeddings.js";
import { VectorFile } from "../../src/knowledge/vector-file.js";
import { descriptorsIn } from "../helpers/descriptors.js";
import { tempDirEachTest } from "../helpers/temp.js";

/** `count` rows whose every component is `first`, `first` + 1, …: a row read tells which it is. */
function rows(count: number, first: number): Float32Array {
  const vectors = new Float32Array(count * embeddingDimensions);
  for (let i = 0; i < count; i++) vectors.fill(first + i, i * embeddingDimensions, (i + 1) * embeddingDimensions);
  return vectors;
}

/** What `read` visits, as [index, value of the row's components] pairs, checking each row is one value throughout. */
function readAll(file: VectorFile, wanted: number[]): Array<[number, number]> {
  const seen: Array<[number, number]> = [];
  file.read(wanted, (index, vector) => {
    expect(vector.every((x) => x === vector[0])).toBe(true);
    seen.push([index, vector[0]!]);
  });
  return seen;
}

describe("a vector rows file", () => {
  const dir = tempDirEachTest("parley-vector-file");

  it("reads the rows asked for, in the order asked, skipping rows it does not hold", () => {
    const file = new VectorFile(join(dir(), "rows.f32"));
    expect(readAll(file, [0])).toEqual([]);
    expect(existsSync(file.path)).toBe(false);
    file.write([0, 1, 2, 5], rows(4, 10));
    expect(readAll(file, [5, 0, 9, 2, 2])).toEqual([
      [0, 13],
      [1, 10],
      [3, 12],
      [4, 12],
    ]);
    file.close();
  });

  it("keeps its descriptor between reads and writes, and lets it go when closed", () => {
    const file = new VectorFile(join(dir(), "rows.f32"));
    file.write([0], rows(1, 1));
    expect(readAll(file, [0])).toEqual([[0, 1]]);
    file.write([1], rows(1, 2));
    expect(readAll(file, [0, 1])).toEqual([
      [0, 1],
      [1, 2],
    ]);
    expect(descriptorsIn(dir())).toBe(1);
    file.close();
    expect(descriptorsIn(dir())).toBe(0);
    expect(readAll(file, [1])).toEqual([[0, 2]]);
    file.close();
  });

  it("reads the file now at its path after the one it had open was replaced by a rename", () => {
    const path = join(dir(), "rows.f32");
    const file = new VectorFile(path);
    file.write([0, 1], rows(2, 1));
    expect(readAll(file, [0, 1])).toEqual([
      [0, 1],
      [1, 2],
    ]);
    const rewritten = new VectorFile(join(dir(), "rows.f32.new"));
    rewritten.write([0, 1, 2], rows(3, 7));
    rewritten.close();
    renameSync(rewritten.path, path);
    expect(readAll(file, [0, 1, 2])).toEqual([
      [0, 7],
      [1, 8],
      [2, 9],
    ]);
    file.close();
    expect(descriptorsIn(dir())).toBe(0);
  });

  it("after its file was removed, reads nothing, and a write makes the file again at its path", () => {
    const file = new VectorFile(join(dir(), "rows.f32"));
    file.write([0, 1], rows(2, 1));
    expect(readAll(file, [0])).toEqual([[0, 1]]);
    rmSync(file.path);
    expect(readAll(file, [0, 1])).toEqual([]);
    file.write([1], rows(1, 5));
    // The new file holds row 1 only: row 0 is the hole before it.
    expect(readAll(file, [0, 1])).toEqual([
      [0, 0],
      [1, 5],
    ]);
    const reopened = new VectorFile(file.path);
    expect(readAll(reopened, [1])).toEqual([[0, 5]]);
    file.close();
    reopened.close();
  });

  it("holds a bounded number of descriptors however many files are read", () => {
    const files = Array.from({ length: 300 }, (_, i) => new VectorFile(join(dir(), `rows-${i}.f32`)));
    for (const [i, file] of files.entries()) file.write([0], rows(1, i));
    for (const [i, file] of files.entries()) expect(readAll(file, [0])).toEqual([[0, i]]);
    expect(descriptorsIn(dir())).toBeLessThanOrEqual(256);
    for (const file of files) file.close();
    expect(descriptorsIn(dir())).toBe(0);
  });
});
