import type { Logger } from "pino";
import type { SqlRunner } from "./client.js";

// PostgreSQL's autovacuum defaults (autovacuum_vacuum_threshold and _scale_factor, autovacuum_analyze_threshold and
// _scale_factor): a table is vacuumed past 50 dead rows + 20 % of its live ones, analyzed past 50 + 10 % changed.
const vacuumThreshold = 50;
const vacuumScale = 0.2;
const analyzeThreshold = 50;
const analyzeScale = 0.1;

export interface TableUpkeep {
  table: string;
  action: "vacuum" | "analyze";
  ms: number;
}

/** The tables that need autovacuum's work by its rules: a vacuum (which analyzes too), or an analyze. */
async function upkeepDue(sql: SqlRunner): Promise<Array<Omit<TableUpkeep, "ms">>> {
  const rows = await sql.query<{ table: string; live: number; dead: number; changed: number }>(
    `SELECT relname AS table, n_live_tup::float8 AS live, n_dead_tup::float8 AS dead,
            n_mod_since_analyze::float8 AS changed
       FROM pg_stat_user_tables WHERE schemaname = 'public' ORDER BY relname`,
  );
  return rows.flatMap(({ table, live, dead, changed }): Array<Omit<TableUpkeep, "ms">> => {
    if (dead > vacuumThreshold + vacuumScale * live) return [{ table, action: "vacuum" }];
    if (changed > analyzeThreshold + analyzeScale * live) return [{ table, action: "analyze" }];
    return [];
  });
}

/** One pass of autovacuum's work over the tables that need it, one table at a time. */
export async function runUpkeep(sql: SqlRunner): Promise<TableUpkeep[]> {
  const done: TableUpkeep[] = [];
  for (const { table, action } of await upkeepDue(sql)) {
    const started = performance.now();
    const name = `"${table.replaceAll('"', '""')}"`;
    await sql.exec(action === "vacuum" ? `VACUUM (ANALYZE) ${name}` : `ANALYZE ${name}`);
    done.push({ table, action, ms: Math.round(performance.now() - started) });
  }
  return done;
}

export interface EmbeddedUpkeep {
  /** A pass now, after the one running (if any): what it did. */
  pass(): Promise<TableUpkeep[]>;
  /** No pass starts after this; resolves once the running one, if any, has finished. */
  stop(): Promise<void>;
}

/**
 * Autovacuum's work for the embedded database, which has no background workers to do it: without it the planner
 * never learns a table's size or contents (10,000 chunks looked like 200, and a full-text search scanned an index of
 * every chunk sharing a word with the question where reading a few hundred rows sufficed), and rows replaced by
 * updates are never reclaimed. A pass every `intervalMs` reads the tables' counters (one cheap statement) and
 * vacuums or analyzes those past autovacuum's thresholds. The database runs one statement at a time, so requests
 * wait while a table is processed: an analyze reads at most 30,000 sampled rows (a quarter of a second for 10,000
 * chunks); the first vacuum of a large table takes longest, and later ones skip the pages it found all visible.
 */
export function startEmbeddedUpkeep(sql: SqlRunner, logger: Logger, intervalMs: number): EmbeddedUpkeep {
  let stopped = false;
  let running: Promise<TableUpkeep[]> = Promise.resolve([]);
  let timer: NodeJS.Timeout | undefined;
  const pass = () => {
    running = running
      .catch(() => [])
      .then(() => runUpkeep(sql))
      .then((done) => {
        if (done.length) logger.info({ tables: done }, "embedded database upkeep");
        return done;
      });
    return running;
  };
  const schedule = () => {
    timer = setTimeout(() => {
      pass()
        .catch((err: unknown) => logger.warn({ err }, "embedded database upkeep failed; it is tried again later"))
        .finally(() => {
          if (!stopped) schedule();
        });
    }, intervalMs);
    timer.unref();
  };
  schedule();
  return {
    pass,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running.catch(() => undefined);
    },
  };
}
