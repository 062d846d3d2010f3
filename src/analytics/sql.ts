import type { SqlRunner } from "../db/client.js";
import type { Services } from "../services.js";

export type AnalyticsSql = Pick<SqlRunner, "query">;

/**
 * Runs each of the figures' queries in a short transaction of its own, so that they can run side by side on
 * the pool's connections, with what reading large ranges needs: no JIT (compiling a plan costs more on our
 * machines than running it) and enough memory to aggregate and sort without spilling to disk.
 */
export function analyticsSql(services: Services): AnalyticsSql {
  return {
    query: <R>(text: string, params: unknown[] = []) =>
      services.db.prisma.$transaction(
        async (tx) => {
          await tx.$queryRawUnsafe("SELECT set_config('jit', 'off', true), set_config('work_mem', '64MB', true)");
          return tx.$queryRawUnsafe<R[]>(text, ...params);
        },
        { timeout: 60_000, maxWait: 30_000 },
      ),
  };
}
