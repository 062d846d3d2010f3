import type { SqlRunner } from "./client.js";
import { Prisma } from "./generated/prisma/client.js";

/**
 * What the writes on every message's path need of a database: one raw statement, with the count of rows it wrote.
 * A Prisma client or transaction is one; so is `directStatements`, the service's own connection.
 */
export interface Statements {
  $executeRaw(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]): PromiseLike<number>;
}

/**
 * A parameter as Prisma sends it: a date as its UTC time (what Prisma writes into a `timestamp` column, which keeps no
 * zone), where the drivers would write the process's local time.
 */
const parameter = (value: unknown) => (value instanceof Date ? value.toISOString() : value);

/**
 * `$executeRaw` on the service's own connection to the database (`Database.sql`), with no transaction. Prisma's
 * request pipeline cost 0.38–0.63 ms of CPU a statement, against 0.19–0.21 ms for the same statement this way, on
 * the two statements of every message (the customer's, the reply): for writes no endpoint wants an event of.
 */
export function directStatements(sql: Pick<SqlRunner, "run">): Statements {
  return {
    $executeRaw(query, ...values) {
      const statement =
        query instanceof Prisma.Sql ? query : Prisma.sql(query, ...(values as Parameters<typeof Prisma.sql>[1][]));
      return sql.run(statement.text, statement.values.map(parameter));
    },
  };
}
