import { createHash, randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import type { SqlRunner } from "./client.js";

export const migrationsDir = fileURLToPath(new URL("../../prisma/migrations/", import.meta.url));

// Arbitrary constant: instances starting together apply migrations one at a time.
const migrationLock = 7_270_736_900;

interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

async function readMigrations(): Promise<Migration[]> {
  const entries = await readdir(migrationsDir, { withFileTypes: true });
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(`${migrationsDir}${name}/migration.sql`, "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    }),
  );
}

/**
 * Applies the SQL migrations under prisma/migrations that have not run yet and records them in
 * Prisma's own `_prisma_migrations` table, so `prisma migrate deploy` on a connected machine agrees
 * (DESIGN §7: the Prisma CLI's schema engine cannot be downloaded here).
 */
export async function migrate(sql: SqlRunner): Promise<string[]> {
  await sql.exec(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id" VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum" VARCHAR(64) NOT NULL,
    "finished_at" TIMESTAMPTZ,
    "migration_name" VARCHAR(255) NOT NULL,
    "logs" TEXT,
    "rolled_back_at" TIMESTAMPTZ,
    "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count" INTEGER NOT NULL DEFAULT 0
  )`);
  await sql.query("SELECT pg_advisory_lock($1)", [migrationLock]);
  try {
    const applied = new Map(
      (
        await sql.query<{ migration_name: string; checksum: string }>(
          `SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
        )
      ).map((r) => [r.migration_name, r.checksum]),
    );
    const ran: string[] = [];
    for (const m of await readMigrations()) {
      const previous = applied.get(m.name);
      if (previous !== undefined) {
        if (previous !== m.checksum) throw new Error(`Migration ${m.name} was changed after it was applied`);
        continue;
      }
      await sql.exec(`BEGIN;\n${m.sql}\n;COMMIT;`).catch(async (err) => {
        await sql.exec("ROLLBACK").catch(() => undefined);
        throw new Error(`Migration ${m.name} failed: ${(err as Error).message}`);
      });
      await sql.query(
        `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count) VALUES ($1, $2, now(), $3, 1)`,
        [randomUUID(), m.checksum, m.name],
      );
      ran.push(m.name);
    }
    return ran;
  } finally {
    await sql.query("SELECT pg_advisory_unlock($1)", [migrationLock]);
  }
}
