import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaClient } from "./generated/prisma/client.js";
import { openPGliteThread } from "./pglite-remote.js";
import { directStatements, type Statements } from "./statements.js";

/** Plain SQL next to Prisma: migrations, locking queries of the job queue, vector search. */
export interface SqlRunner {
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  /** A statement's count of the rows it wrote. */
  run(text: string, params?: unknown[]): Promise<number>;
  exec(text: string): Promise<void>;
}

export interface Database {
  kind: "pglite" | "postgres";
  prisma: PrismaClient;
  sql: SqlRunner;
  /** Raw statements on `sql`, Prisma's way of writing them (src/db/statements.ts). */
  statements: Statements;
  /** PGlite only: its data directory as a tarball, which `pgliteSeed` starts another database from. */
  dump?(): Promise<Uint8Array>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** PostgreSQL connection string; when absent the embedded PGlite database is used. */
  url?: string;
  /** Where PGlite keeps its files, or `memory://` for a throw-away database. */
  pgliteDir?: string;
  /**
   * A dump of a PGlite data directory (`dumpDataDir`) to start from instead of initialising a new one: the test
   * suite starts each file's `memory://` database from one migrated copy, where initialising took seconds each.
   */
  pgliteSeed?: Uint8Array;
  poolSize?: number;
  /** How long a query waits for a free pool connection before it fails (src/db/busy.ts). */
  poolTimeoutMs?: number;
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.url) return openPostgres(options.url, options.poolSize ?? 10, options.poolTimeoutMs ?? 5_000);
  return openPGlite(options.pgliteDir ?? "./data/pglite", options.pgliteSeed);
}

async function openPostgres(url: string, poolSize: number, poolTimeoutMs: number): Promise<Database> {
  // Without a timeout, requests would queue for a connection without end when the pool is exhausted.
  const pool = new pg.Pool({ connectionString: url, max: poolSize, connectionTimeoutMillis: poolTimeoutMs });
  // An idle connection dropped by the server (restart, failover, DROP DATABASE) must not crash the
  // process: pg emits it on the pool, and Prisma removes its own listener when it disconnects.
  pool.on("error", () => undefined);
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  const sql: SqlRunner = {
    async query(text, params) {
      const result = await pool.query(text, params as unknown[]);
      return result.rows;
    },
    async run(text, params) {
      return (await pool.query(text, params as unknown[])).rowCount ?? 0;
    },
    async exec(text) {
      await pool.query(text);
    },
  };
  return {
    kind: "postgres",
    prisma,
    sql,
    statements: directStatements(sql),
    async close() {
      await prisma.$disconnect();
      await pool.end();
    },
  };
}

/**
 * PGlite is one process's database (DESIGN §5): a second process opening the same directory would
 * corrupt it, so the directory is locked with the owner's pid and a second opener is refused.
 */
function lockDataDir(dir: string): () => void {
  const lockFile = `${path.resolve(dir)}.lock`;
  mkdirSync(path.dirname(lockFile), { recursive: true });
  try {
    writeFileSync(lockFile, String(process.pid), { flag: "wx" });
  } catch {
    const owner = Number(readFileSync(lockFile, "utf8"));
    if (owner && owner !== process.pid && isAlive(owner)) {
      throw new Error(
        `The embedded database ${dir} is in use by process ${owner} (a running Parley). Stop it first, or use DATABASE_URL.`,
      );
    }
    writeFileSync(lockFile, String(process.pid));
  }
  return () => rmSync(lockFile, { force: true });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function openPGlite(dir: string, seed: Uint8Array | undefined): Promise<Database> {
  const unlock = dir.startsWith("memory://") ? () => undefined : lockDataDir(dir);
  const lite = await openPGliteThread(dir, seed).catch((err) => {
    unlock();
    throw err;
  });
  const prisma = new PrismaClient({ adapter: lite.adapter });
  return {
    kind: "pglite",
    prisma,
    sql: { query: lite.query, run: lite.run, exec: lite.exec },
    statements: directStatements(lite),
    dump: lite.dump,
    async close() {
      // The lock goes whatever the close met: a lock left behind refuses the next start.
      try {
        await prisma.$disconnect();
        await lite.close();
      } finally {
        unlock();
      }
    },
  };
}
