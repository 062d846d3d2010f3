import { periodicJob } from "../jobs/periodic.js";
import type { Services } from "../services.js";
import { enforceRetention } from "./enforce.js";
import { dataClasses } from "./periods.js";

const retentionSchedule = periodicJob("retention.schedule", 6 * 3_600_000);
export const retentionScheduleQueue = retentionSchedule.queue;
export const retentionQueue = "retention.enforce";

/** Enqueues a tenant's retention run; one already waiting or running absorbs it (one run per tenant at a time). */
export function enqueueRetention(services: Services, tenantId: string): Promise<string> {
  return services.jobs.enqueue({ queue: retentionQueue, tenantId, dedupeKey: tenantId, maxAttempts: 3 });
}

export function startRetentionSchedule(services: Services): Promise<void> {
  return retentionSchedule.start(services);
}

/** Enqueues a run for every tenant with a retention period set, then books the next check. */
export async function runRetentionSchedule(services: Services): Promise<number> {
  const due = await services.db.sql.query<{ id: string }>(
    `SELECT id FROM tenants
      WHERE EXISTS (SELECT 1 FROM jsonb_each(settings -> 'retention') e WHERE e.key = ANY($1::text[]) AND e.value <> 'null'::jsonb)`,
    [dataClasses],
  );
  for (const tenant of due) await enqueueRetention(services, tenant.id);
  await retentionSchedule.bookNext(services);
  return due.length;
}

export async function runQueuedRetention(services: Services, tenantId: string | null): Promise<void> {
  if (tenantId) await enforceRetention(services, tenantId);
}
