import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import pg from "pg";

/**
 * A database for one test file: a fresh PostgreSQL database on the DATABASE_URL server when it is
 * set (`npm run test:pg`), else a throw-away in-memory PGlite. Both start migrated, copied from the one
 * database the run's global setup migrated (test/global-setup.ts), unless `empty` is asked for.
 */
export interface TestDatabase {
  url?: string;
  pgliteDir?: string;
  /** The migrated PGlite data directory an in-memory database starts from (DatabaseOptions.pgliteSeed). */
  pgliteSeed?: Uint8Array;
  drop(): Promise<void>;
}

/** Environment variables by which the global setup hands the migrated copies to the test files. */
export const migratedCopies = { pglite: "PARLEY_TEST_PGLITE_SEED", postgres: "PARLEY_TEST_TEMPLATE_DATABASE" } as const;

/** The migrated dump, read once per test process: each database's thread gets a copy of it. */
let migratedDump: { file: string; bytes: Uint8Array } | undefined;

function migratedPGlite(file: string): Uint8Array {
  if (migratedDump?.file !== file) migratedDump = { file, bytes: readFileSync(file) };
  return migratedDump.bytes;
}

export async function createTestDatabase(options: { empty?: boolean; server?: string } = {}): Promise<TestDatabase> {
  const serverUrl = options.server ?? process.env.DATABASE_URL;
  if (!serverUrl) {
    const seedFile = options.empty ? undefined : process.env[migratedCopies.pglite];
    return {
      pgliteDir: "memory://",
      pgliteSeed: seedFile ? migratedPGlite(seedFile) : undefined,
      drop: async () => undefined,
    };
  }
  const name = `parley_test_${randomBytes(6).toString("hex")}`;
  const template = options.empty ? undefined : process.env[migratedCopies.postgres];
  await onServer(serverUrl, `CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ""}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => onServer(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

/** One statement on the server's maintenance database (CREATE and DROP DATABASE run outside any other). */
export async function onServer(serverUrl: string, statement: string): Promise<void> {
  await rowsOnServer(serverUrl, statement);
}

/** The rows of one statement on the server's maintenance database. */
async function rowsOnServer(serverUrl: string, statement: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return (await client.query(statement)).rows;
  } finally {
    await client.end();
  }
}

/**
 * Whether the server (DATABASE_URL unless given) can install pgvector. Debian's PostgreSQL has no package for it;
 * `scripts/pgvector-server.sh` starts a server that has it, which CI runs the vector tests on.
 */
export async function serverHasPgvector(serverUrl = process.env.DATABASE_URL): Promise<boolean> {
  if (!serverUrl) return false;
  return (await rowsOnServer(serverUrl, `SELECT 1 FROM pg_available_extensions WHERE name = 'vector'`)).length > 0;
}

/** Whether the tests' database has pgvector: PGlite ships it; a server (DATABASE_URL) only where it can install it. */
export async function testDatabaseHasPgvector(): Promise<boolean> {
  return !process.env.DATABASE_URL || serverHasPgvector();
}
