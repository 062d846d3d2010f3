import { PGlite } from "@electric-sql/pglite";
import pg from "pg";

/**
 * SQL statements sent to either database by this process, BEGIN and COMMIT included: the round trips a request
 * costs. Counted at the drivers, below Prisma, so raw SQL and the transactions Prisma opens are seen alike:
 * every PGlite statement (query, exec, a transaction's own) passes through `_runExclusiveQuery`, and every
 * PostgreSQL one through `pg.Client#query`, which pooled connections use too.
 */
let sent = 0;

function counting<T extends object>(prototype: T, method: keyof T): void {
  const original = prototype[method] as (...args: unknown[]) => unknown;
  Object.assign(prototype, {
    [method](this: unknown, ...args: unknown[]) {
      sent++;
      return original.apply(this, args);
    },
  });
}

counting(PGlite.prototype as unknown as { _runExclusiveQuery: () => unknown }, "_runExclusiveQuery");
counting(pg.Client.prototype, "query");

export const statementsSent = () => sent;
