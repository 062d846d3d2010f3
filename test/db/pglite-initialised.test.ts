import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import { afterAll, describe, expect, it } from "vitest";
import { createPGlite } from "../../src/db/pglite-initialised.js";
import { testTempDir } from "../helpers/temp.js";

const dir = testTempDir("parley-pglite-initialised");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const tables = async (lite: PGlite) =>
  (await lite.query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")).rows.map(
    (r) => r.name,
  );

/** A copy that says where a database came from: one with a table no initdb makes. */
async function markedCopy(copyPath: string): Promise<void> {
  const lite = await createPGlite("memory://", undefined, path.join(dir, "unused.tar.gz"));
  try {
    await lite.exec("CREATE TABLE made_from_the_copy (id int)");
    writeFileSync(copyPath, Buffer.from(await (await lite.dumpDataDir("gzip")).arrayBuffer()));
  } finally {
    await lite.close();
  }
}

describe.runIf(!process.env.DATABASE_URL)("a new embedded database", () => {
  it("is initialised when there is no copy, and leaves one that the next new database starts from", async () => {
    mkdirSync(path.join(dir, "first"));
    const copyPath = path.join(dir, "first", "initialised.tar.gz");
    const lite = await createPGlite(path.join(dir, "first", "data"), undefined, copyPath);
    try {
      expect(await tables(lite)).toEqual([]);
      await lite.exec("CREATE TABLE notes (id int)");
    } finally {
      await lite.close();
    }
    // The copy is what initdb made, not what was written afterwards.
    expect(existsSync(copyPath)).toBe(true);
    const next = await createPGlite(path.join(dir, "first", "next"), undefined, copyPath);
    try {
      expect(await tables(next)).toEqual([]);
      expect((await next.query<{ one: number }>("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
    } finally {
      await next.close();
    }
  });

  it("starts from the copy in a new directory or in memory, and an existing directory stays as it is", async () => {
    const copyPath = path.join(dir, "marked.tar.gz");
    await markedCopy(copyPath);
    const existing = path.join(dir, "existing");
    const first = await createPGlite(existing, undefined, copyPath);
    await first.exec("CREATE TABLE kept (id int)");
    await first.close();
    for (const where of [path.join(dir, "new"), "memory://"]) {
      const lite = await createPGlite(where, undefined, copyPath);
      try {
        expect(await tables(lite)).toEqual(["made_from_the_copy"]);
      } finally {
        await lite.close();
      }
    }
    const reopened = await createPGlite(existing, undefined, copyPath);
    try {
      expect(await tables(reopened)).toEqual(["kept", "made_from_the_copy"]);
    } finally {
      await reopened.close();
    }
  });

  it("is initialised when the copy cannot be loaded, and the copy is made again", async () => {
    const copyPath = path.join(dir, "broken.tar.gz");
    writeFileSync(copyPath, "not a data directory");
    const data = path.join(dir, "after-broken");
    const lite = await createPGlite(data, undefined, copyPath);
    try {
      expect(await tables(lite)).toEqual([]);
    } finally {
      await lite.close();
    }
    expect(readFileSync(copyPath).length).toBeGreaterThan(1_000_000);
  });
});
