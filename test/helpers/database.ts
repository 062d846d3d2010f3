import { randomBytes } from "node:crypto";
import pg from "pg";

/**
 * A database for one test file: a fresh PostgreSQL database on the DATABASE_URL server when it is
 * set (`npm run test:pg`), else a throw-away in-memory PGlite.
 */
export interface TestDatabase {
  url?: string;
  pgliteDir?: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) return { pgliteDir: "memory://", drop: async () => undefined };
  const name = `parley_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}
