import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { openDatabase } from "../src/db/client.js";
import { migrate } from "../src/db/migrate.js";
import { migratedCopies, onServer } from "./helpers/database.js";

/**
 * Migrates one database for the whole run, which each test file's database is copied from (test/helpers/database.ts):
 * a PostgreSQL template database, or a dump of an in-memory PGlite. Initialising and migrating a database for each
 * file took seconds of CPU each, on both modes. Returns what removes it.
 */
async function migratedDatabase(runDir: string): Promise<() => Promise<void>> {
  const serverUrl = process.env.DATABASE_URL;
  if (serverUrl) {
    const name = `parley_template_${randomBytes(6).toString("hex")}`;
    await onServer(serverUrl, `CREATE DATABASE ${name}`);
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    const db = await openDatabase({ url: url.toString(), poolSize: 1 });
    await migrate(db.sql).finally(() => db.close());
    process.env[migratedCopies.postgres] = name;
    return () => onServer(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
  const db = await openDatabase({ pgliteDir: "memory://" });
  const seedFile = path.join(runDir, "migrated-pglite.tar");
  try {
    await migrate(db.sql);
    writeFileSync(seedFile, await db.dump!());
  } finally {
    await db.close();
  }
  process.env[migratedCopies.pglite] = seedFile;
  return async () => rmSync(seedFile, { force: true });
}

/**
 * Gives the run a temporary directory of its own for the tests' data directories (test/helpers/temp.ts) and the
 * migrated database, and fails the run if anything else is left in it at the end: every test must remove what it
 * made, and a service's shutdown must leave nothing behind. Removed either way.
 */
export default async function setup(): Promise<() => Promise<void>> {
  const runDir = mkdtempSync(path.join(tmpdir(), "parley-run-"));
  process.env.PARLEY_TEST_TMP = runDir;
  const removeMigrated = await migratedDatabase(runDir);
  return async () => {
    await removeMigrated();
    const left = readdirSync(runDir);
    rmSync(runDir, { recursive: true, force: true });
    if (!left.length) return;
    // Vitest reports an error thrown here but still exits 0: the exit code is set as well.
    process.exitCode = 1;
    throw new Error(`Tests left temporary directories behind (now removed): ${left.join(", ")}`);
  };
}
