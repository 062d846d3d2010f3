import type { Services } from "../services.js";
import { enforceRetention } from "./enforce.js";
import { dataClasses } from "./periods.js";

export const retentionScheduleQueue = "retention.schedule";
export const retentionQueue = "retention.enforce";
const periodMs = 6 * 3_600_000;

// One scheduling job per period across all instances: the period is part of its idempotency key.
const slotKey = (at: number) => `${retentionScheduleQueue}:${Math.floor(at / periodMs)}`;

/** Enqueues a tenant's retention run; one already waiting or running absorbs it (one run per tenant at a time). */
export function enqueueRetention(services: Services, tenantId: string): Promise<string> {
  return services.jobs.enqueue({ queue: retentionQueue, tenantId, dedupeKey: tenantId, maxAttempts: 3 });
}

export async function startRetentionSchedule(services: Services): Promise<void> {
  await services.jobs.enqueue({ queue: retentionScheduleQueue, dedupeKey: slotKey(Date.now()), maxAttempts: 3 });
}

/** Enqueues a run for every tenant with a retention period set, then books the next check. */
export async function runRetentionSchedule(services: Services): Promise<number> {
  const due = await services.db.sql.query<{ id: string }>(
    `SELECT id FROM tenants
      WHERE EXISTS (SELECT 1 FROM jsonb_each(settings -> 'retention') e WHERE e.key = ANY($1::text[]) AND e.value <> 'null'::jsonb)`,
    [dataClasses],
  );
  for (const tenant of due) await enqueueRetention(services, tenant.id);
  const next = (Math.floor(Date.now() / periodMs) + 1) * periodMs;
  await services.jobs.enqueue({ queue: retentionScheduleQueue, runAt: new Date(next), dedupeKey: slotKey(next), maxAttempts: 3 });
  return due.length;
}

export async function runQueuedRetention(services: Services, tenantId: string | null): Promise<void> {
  if (tenantId) await enforceRetention(services, tenantId);
}
