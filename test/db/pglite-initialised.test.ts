import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPGlite } from "../../src/db/pglite-initialised.js";
import { testTempDir } from "../helpers/temp.js";

const tables = async (lite: PGlite) =>
  (await lite.query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")).rows.map(
    (r) => r.name,
  );

async function tablesOf(lite: PGlite): Promise<string[]> {
  try {
    return await tables(lite);
  } finally {
    await lite.close();
  }
}

// One initdb in all (seconds of CPU): the copy it leaves is marked, so that a database made from it can be told from one
// initdb made.
describe.runIf(!process.env.DATABASE_URL)("a new embedded database", () => {
  // Made here, not at the file's top: on PostgreSQL the file runs no test, and no hook that would remove it.
  let dir = "";
  beforeAll(() => {
    dir = testTempDir("parley-pglite-initialised");
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("is initialised when the copy cannot be loaded, leaves a new copy, and later new databases start from it", async () => {
    const copy = path.join(dir, "initialised.tar.gz");
    writeFileSync(copy, "not a data directory");
    expect(await tablesOf(await createPGlite(path.join(dir, "first"), undefined, copy))).toEqual([]);
    expect(readFileSync(copy).length).toBeGreaterThan(1_000_000);

    const marked = path.join(dir, "marked.tar.gz");
    const fromCopy = await createPGlite("memory://", undefined, copy);
    try {
      await fromCopy.exec("CREATE TABLE made_from_the_copy (id int)");
      writeFileSync(marked, Buffer.from(await (await fromCopy.dumpDataDir("gzip")).arrayBuffer()));
    } finally {
      await fromCopy.close();
    }

    const existing = path.join(dir, "existing");
    const made = await createPGlite(existing, undefined, marked);
    await made.exec("CREATE TABLE kept (id int)");
    expect(await tablesOf(made)).toEqual(["kept", "made_from_the_copy"]);
    // A directory that holds a database is opened as it is.
    expect(await tablesOf(await createPGlite(existing, undefined, marked))).toEqual(["kept", "made_from_the_copy"]);
    expect(await tablesOf(await createPGlite("memory://", undefined, marked))).toEqual(["made_from_the_copy"]);
    // An initdb, four loads and two dumps: 14 s on a quiet machine, more than the default 30 s on a loaded one.
  }, 180_000);
});
