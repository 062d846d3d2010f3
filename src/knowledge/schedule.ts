import { periodicJob } from "../jobs/periodic.js";
import type { Services } from "../services.js";
import { markForSync } from "./sync.js";

const resyncSchedule = periodicJob("knowledge.schedule", 5 * 60_000);
export const scheduleQueue = resyncSchedule.queue;

export function startResyncSchedule(services: Services): Promise<void> {
  return resyncSchedule.start(services);
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
  await resyncSchedule.bookNext(services);
  return due.length;
}
