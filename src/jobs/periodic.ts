import type { Services } from "../services.js";

/**
 * A job that runs once per period across all instances: the period's number is part of its idempotency key, so
 * every instance may book it and one run happens. An instance books the current period's run at start; each run
 * books the next period's when its work is done.
 */
export function periodicJob(queue: string, periodMs: number) {
  const slotKey = (at: number) => `${queue}:${Math.floor(at / periodMs)}`;
  return {
    queue,
    async start(services: Pick<Services, "jobs">): Promise<void> {
      await services.jobs.enqueue({ queue, dedupeKey: slotKey(Date.now()), maxAttempts: 3 });
    },
    async bookNext(services: Pick<Services, "jobs">, at = Date.now()): Promise<void> {
      const next = (Math.floor(at / periodMs) + 1) * periodMs;
      await services.jobs.enqueue({ queue, runAt: new Date(next), dedupeKey: slotKey(next), maxAttempts: 3 });
    },
  };
}
