import { existsSync, rmSync } from "node:fs";
import pg from "pg";
import { expect, it } from "vitest";
import { loadConfig } from "../src/config.js";
import { closeServices, createServices } from "../src/services.js";
import { createTestDatabase } from "./helpers/database.js";
import { testTempDir } from "./helpers/temp.js";

async function connectionsTo(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
    );
    return rows[0]!.n;
  } finally {
    await client.end();
  }
}

it("closes what a start had opened when a later step fails, so that the next start gets the database", async () => {
  const database = await createTestDatabase();
  const dataDir = testTempDir("parley-services");
  // On PGlite a directory of its own: its lock file stays until the database is closed.
  const pgliteDir = database.url ? undefined : `${dataDir}/pglite`;
  const env = { ...process.env, NODE_ENV: "test", LOG_LEVEL: "silent", DATA_DIR: dataDir, DATABASE_URL: database.url ?? "" };
  try {
    // The secrets key is read after the database, its migrations, the upkeep, Redis and the tenant cache started.
    const shortKey = loadConfig({ ...env, SECRETS_KEY: Buffer.alloc(16).toString("base64") });
    await expect(createServices(shortKey, { pgliteDir, pgliteSeed: database.pgliteSeed })).rejects.toThrow(/32 bytes/);
    // A backend leaves pg_stat_activity once it has exited, a moment after its client closed the connection.
    if (database.url) await expect.poll(() => connectionsTo(database.url!), { timeout: 10_000, interval: 50 }).toBe(0);
    else expect(existsSync(`${pgliteDir}.lock`)).toBe(false);

    // The first start left the embedded database in its directory: it opens as it is.
    const services = await createServices(loadConfig(env), { pgliteDir });
    await closeServices(services);
  } finally {
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
