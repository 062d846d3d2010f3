import pg from "pg";
import { RequestThread } from "../../src/threads/request-thread.js";

/**
 * SQL statements sent to either database by this process, BEGIN and COMMIT included: the round trips a request
 * costs. Counted at the drivers, below Prisma, so raw SQL and the transactions Prisma opens are seen alike: every
 * PostgreSQL statement passes through `pg.Client#query`, which pooled connections use too, and every PGlite one is a
 * request to the embedded database's thread (src/db/pglite-remote.ts: a statement, a script, a transaction's begin,
 * commit or rollback).
 */
let sent = 0;

function counting<T extends object>(prototype: T, method: keyof T, counts: (self: T, args: unknown[]) => boolean): void {
  const original = prototype[method] as (...args: unknown[]) => unknown;
  Object.assign(prototype, {
    [method](this: T, ...args: unknown[]) {
      if (counts(this, args)) sent++;
      return original.apply(this, args);
    },
  });
}

const databaseRequests = new Set(["query", "execute", "script", "begin", "commit", "rollback", "sql", "run", "exec"]);

counting(pg.Client.prototype, "query", () => true);
counting(
  RequestThread.prototype,
  "ask",
  (thread, [request]) =>
    (thread as unknown as { name: string }).name === "embedded-database" &&
    databaseRequests.has((request as { op?: string }).op ?? ""),
);

export const statementsSent = () => sent;
