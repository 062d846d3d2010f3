import { randomUUID } from "node:crypto";
import { expect, vi } from "vitest";
import type { JobQueue, JobRecord } from "../../src/jobs/queue.js";
import type { Services } from "../../src/services.js";

/** Waits until the database's clock is past `at` (e.g. a job's `lockedUntil`): the clock leases are judged by. */
export async function untilDatabaseClockPasses(services: Services, at: Date): Promise<void> {
  await vi.waitFor(
    async () => {
      const [row] = await services.db.sql.query<{ passed: boolean }>("SELECT now() > $1::timestamptz AS passed", [at]);
      expect(row?.passed).toBe(true);
    },
    { interval: 20 },
  );
}

/** Waits until the lease a job holds now has run out by the database's clock. */
export async function untilLeaseRunsOut(services: Services, jobId: string): Promise<void> {
  const { lockedUntil } = await services.db.prisma.job.findUniqueOrThrow({ where: { id: jobId } });
  if (!lockedUntil) throw new Error(`job ${jobId} holds no lease`);
  await untilDatabaseClockPasses(services, lockedUntil);
}

export interface RecordedClaim {
  queues: string[];
  /** `Date.now()` when the claim was asked for: its statement reads the database's clock after that. */
  startedAt: number;
  result: Promise<JobRecord | null>;
  /** What the claim returned once it has: a job, or null for nothing due; undefined while it runs. */
  outcome: JobRecord | null | undefined;
}

/**
 * Every claim made through these queues from now on, as workers make them: what a worker did (or did not
 * do) can then be waited for, instead of waiting for a time in which it would have done it.
 * Restored by `vi.restoreAllMocks()`.
 */
export function recordClaims(...queues: JobQueue[]): RecordedClaim[] {
  const claims: RecordedClaim[] = [];
  for (const queue of new Set(queues)) {
    const claim = queue.claim.bind(queue);
    vi.spyOn(queue, "claim").mockImplementation((workerId, names, leaseMs) => {
      const record: RecordedClaim = {
        queues: names,
        startedAt: Date.now(),
        result: claim(workerId, names, leaseMs),
        outcome: undefined,
      };
      record.result.then(
        (job) => {
          record.outcome = job;
        },
        () => {
          record.outcome = null;
        },
      );
      claims.push(record);
      return record.result;
    });
  }
  return claims;
}

/** Waits until every recorded claim has returned. */
export async function claimsSettled(claims: RecordedClaim[]): Promise<void> {
  await Promise.allSettled(claims.map((claim) => claim.result));
}

/**
 * The queues announced on an instance's bus (`job:enqueued`) from now on, once the subscription is live
 * (through Redis too: a probe announcement has come back). Announcements reach every subscriber of an
 * instance together, so once one is heard here, a worker subscribed on the same bus has had it too.
 */
export async function hearAnnouncements(services: Services): Promise<{ heard: string[]; stop(): void }> {
  const heard: string[] = [];
  const iterator = services.realtime.pubsub.subscribe("job:enqueued")[Symbol.asyncIterator]();
  void (async () => {
    // The subscription is made on the first pull, which happens here before this function goes on.
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) heard.push(next.value.queue);
  })();
  const probe = `announcement-probe-${randomUUID()}`;
  await vi.waitFor(
    () => {
      services.jobs.announce(probe);
      expect(heard).toContain(probe);
    },
    { interval: 50 },
  );
  return { heard, stop: () => void iterator.return?.() };
}
