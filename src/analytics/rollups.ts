import { periodicJob } from "../jobs/periodic.js";
import type { Services } from "../services.js";
import { figures } from "./days.js";

// Often enough that a day's marks stay few (each of today's writes adds one) and a report rarely has a day to redo.
const refreshSchedule = periodicJob("analytics.rollups", 5 * 60_000);
export const rollupQueue = refreshSchedule.queue;

const dayMs = 86_400_000;
const backfillDays = 28;

/** The same key as the database's deletion triggers (migration 20261125203000): one refresh of a tenant at a time. */
const tenantLock = "SELECT pg_advisory_xact_lock(hashtextextended('analytics:' || $1, 0))";

/** Consecutive days as `[from, to)` ranges: one query per figure and range. */
function ranges(days: Date[]): Array<{ from: Date; to: Date }> {
  const out: Array<{ from: Date; to: Date }> = [];
  for (const day of [...days].sort((a, b) => +a - +b)) {
    const last = out.at(-1);
    if (last && +last.to === +day) last.to = new Date(+day + dayMs);
    else out.push({ from: day, to: new Date(+day + dayMs) });
  }
  return out;
}

/**
 * Recomputes the tenant's days marked stale (all, or those in `[from, to)`) from the raw tables. The marks it takes
 * are deleted first, in the same transaction: a mark committed meanwhile stays for the next refresh, and whatever
 * a taken mark stands for is visible to the queries that follow (each statement sees at least what the deletion
 * saw). Days already rolled up are not read again, so a report over fresh rollups costs one indexed lookup here.
 */
export async function refreshRollups(services: Services, tenantId: string, within?: { from: Date; to: Date }) {
  const range = within ? "AND day >= $2 AND day < $3" : "";
  const params = within ? [tenantId, within.from, within.to] : [tenantId];
  const { prisma } = services.db;
  const [pending] = await prisma.$queryRawUnsafe<Array<{ stale: boolean }>>(
    `SELECT EXISTS (SELECT 1 FROM analytics_stale_days WHERE tenant_id = $1 ${range}) AS stale`,
    ...params,
  );
  if (!pending?.stale) return 0;
  const refreshed = await prisma.$transaction(
    async (tx) => {
      await tx.$executeRawUnsafe(tenantLock, tenantId);
      await tx.$queryRawUnsafe("SELECT set_config('jit', 'off', true), set_config('work_mem', '64MB', true)");
      const taken = await tx.$queryRawUnsafe<Array<{ day: Date }>>(
        `WITH taken AS (DELETE FROM analytics_stale_days WHERE tenant_id = $1 ${range} RETURNING day)
         SELECT DISTINCT day FROM taken`,
        ...params,
      );
      const days = taken.map((t) => t.day);
      // Another refresh took them while this one waited for the lock.
      if (!days.length) return 0;
      for (const figure of figures) {
        await tx.$executeRawUnsafe(
          `DELETE FROM ${figure.table} WHERE tenant_id = $1 AND day = ANY($2::timestamptz[])`,
          tenantId,
          days.map((d) => d.toISOString()),
        );
        for (const { from, to } of ranges(days)) {
          await tx.$executeRawUnsafe(
            `INSERT INTO ${figure.table} (tenant_id, ${figure.columns.join(", ")})
             SELECT $1, ${figure.columns.join(", ")} FROM (${figure.daily({ tenant: "$1", from: "$2", to: "$3", channel: null, byChannel: true })}) d`,
            tenantId,
            from,
            to,
          );
        }
      }
      return days.length;
    },
    { timeout: 600_000, maxWait: 30_000 },
  );
  // After a backfill, the planner's statistics at once (autovacuum gathers them a minute or more later): without,
  // it takes the filled tables for empty and sorts where it would hash.
  if (refreshed >= backfillDays) await services.db.sql.exec(`ANALYZE ${figures.map((f) => f.table).join(", ")}`);
  return refreshed;
}

export function startRollupSchedule(services: Services): Promise<void> {
  return refreshSchedule.start(services);
}

/**
 * Rolls up every tenant's stale days, then books the next run: marks do not pile up for tenants nobody reads the
 * analytics of, and a report finds its days done.
 */
export async function refreshAllRollups(services: Services): Promise<number> {
  const tenants = await services.db.sql.query<{ tenant_id: string }>("SELECT DISTINCT tenant_id FROM analytics_stale_days");
  let days = 0;
  for (const t of tenants) days += await refreshRollups(services, t.tenant_id);
  await refreshSchedule.bookNext(services);
  return days;
}
