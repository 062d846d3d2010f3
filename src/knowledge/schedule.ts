import type { Services } from "../services.js";
import { markForSync } from "./sync.js";

export const scheduleQueue = "knowledge.schedule";
const periodMs = 5 * 60_000;

// One scheduling job per period across all instances: the period is part of its idempotency key.
const slotKey = (at: number) => `${scheduleQueue}:${Math.floor(at / periodMs)}`;

export async function scheduleNextResyncCheck(services: Services, at = Date.now()): Promise<void> {
  const next = (Math.floor(at / periodMs) + 1) * periodMs;
  await services.jobs.enqueue({ queue: scheduleQueue, runAt: new Date(next), dedupeKey: slotKey(next), maxAttempts: 3 });
}

export async function startResyncSchedule(services: Services): Promise<void> {
  await services.jobs.enqueue({ queue: scheduleQueue, dedupeKey: slotKey(Date.now()), maxAttempts: 3 });
}

/**
 * Enqueues a sync for every source whose tenant asked for periodic resyncs (`resyncIntervalHours`)
 * and whose last sync is older than that; then books the next check.
 */
export async function runResyncCheck(services: Services): Promise<number> {
  const due = await services.db.sql.query<{ id: string; tenant_id: string }>(
    `SELECT s.id, s.tenant_id FROM knowledge_sources s JOIN tenants t ON t.id = s.tenant_id
      WHERE s.type = 'url' AND s.status IN ('ready', 'failed')
        AND (t.settings->>'resyncIntervalHours') IS NOT NULL
        AND coalesce(s.last_synced_at, s.created_at) < now() - make_interval(hours => (t.settings->>'resyncIntervalHours')::int)`,
  );
  for (const source of due) {
    await services.db.prisma.$transaction((tx) => markForSync(services, tx, source.tenant_id, source.id));
  }
  await scheduleNextResyncCheck(services);
  return due.length;
}
