import { loadConfig } from "../config.js";
import { openDatabase } from "../db/client.js";
import { migrate } from "../db/migrate.js";

// `npm run db:migrate`: the same migrations the service applies at start.
const config = loadConfig();
const db = await openDatabase({ url: config.DATABASE_URL, pgliteDir: `${config.DATA_DIR}/pglite` });
try {
  const applied = await migrate(db.sql);
  process.stdout.write(applied.length ? `Applied: ${applied.join(", ")}\n` : "The database is up to date.\n");
} catch (err) {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
} finally {
  await db.close();
}
