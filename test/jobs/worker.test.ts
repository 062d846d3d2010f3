import pino from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { backoff, RetryLater } from "../../src/jobs/queue.js";
import { type JobHandler, Worker, type WorkerOptions } from "../../src/jobs/worker.js";
import { closeServices, createServices, type Services } from "../../src/services.js";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { claimsSettled, hearAnnouncements, recordClaims, untilDatabaseClockPasses } from "../helpers/jobs.js";

let app: TestApp;
/**
 * On PostgreSQL, a second instance of the service (its own pool and, with REDIS_URL, its own pubsub
 * connections) on the same database, as two worker processes would be. PGlite is one process's
 * database, so there both workers share the one instance.
 */
let secondInstance: Services;

beforeAll(async () => {
  app = await startTestApp();
  secondInstance =
    app.services.db.kind === "postgres"
      ? await createServices(app.services.config, { logger: pino({ level: "silent" }) })
      : app.services;
});
afterAll(async () => {
  if (secondInstance && secondInstance !== app.services) await closeServices(secondInstance);
  await app?.close();
});

const workers: Worker[] = [];
afterEach(async () => {
  await Promise.all(workers.splice(0).map((worker) => worker.stop()));
  vi.restoreAllMocks();
});

function startWorker(services: Services, handlers: Record<string, JobHandler>, options: Partial<WorkerOptions>): Worker {
  const worker = new Worker(services, handlers, { pollMs: 20, leaseMs: 5_000, ...options });
  workers.push(worker);
  worker.start();
  return worker;
}

let queues = 0;
const freshQueue = () => `worker-queue-${++queues}`;

const jobRow = (id: string) => app.services.db.prisma.job.findUniqueOrThrow({ where: { id } });

async function untilStatus(ids: string[], status: string, timeout = 10_000): Promise<void> {
  await vi.waitFor(
    async () => expect(await app.services.db.prisma.job.count({ where: { id: { in: ids }, status } })).toBe(ids.length),
    { timeout, interval: 20 },
  );
}

/** A promise to hold a handler on until the test lets it go. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

/** A handler that holds each job until `open()`, counting the jobs it holds now and the most it held at once. */
function heldJobs() {
  const held = gate();
  const count = { inFlight: 0, most: 0 };
  const handler: JobHandler = async () => {
    count.most = Math.max(count.most, ++count.inFlight);
    await held.opened;
    count.inFlight--;
  };
  return { handler, count, open: held.open };
}

describe("Worker", () => {
  it("never runs the same job on two workers: 200 jobs drained by two workers, each job exactly once", async () => {
    const queue = freshQueue();
    const runs = new Map<string, string[]>();
    const handlerFor =
      (name: string): JobHandler =>
      async (job) => {
        runs.set(job.id, [...(runs.get(job.id) ?? []), name]);
      };
    const ids: string[] = [];
    for (let n = 0; n < 200; n++) ids.push(await app.services.jobs.enqueue({ queue, payload: { n } }));

    startWorker(app.services, { [queue]: handlerFor("first") }, { concurrency: 4 });
    startWorker(secondInstance, { [queue]: handlerFor("second") }, { concurrency: 4 });
    await untilStatus(ids, "completed", 25_000);

    expect([...runs.keys()].sort()).toEqual([...ids].sort());
    const twice = [...runs].filter(([, by]) => by.length !== 1);
    expect(twice).toEqual([]);
    const byWorker = [...runs.values()].flat();
    expect(byWorker.filter((name) => name === "first").length).toBeGreaterThan(0);
    expect(byWorker.filter((name) => name === "second").length).toBeGreaterThan(0);
    const attempts = await app.services.db.prisma.job.groupBy({ by: ["attempts"], where: { queue }, _count: true });
    expect(attempts).toEqual([{ attempts: 1, _count: 200 }]);
  }, 30_000);

  it("runs up to its concurrency jobs at a time, and no more", async () => {
    const queue = freshQueue();
    const held = heldJobs();
    const claims = recordClaims(app.services.jobs);
    startWorker(app.services, { [queue]: held.handler }, { concurrency: 3 });
    const ids = await Promise.all(Array.from({ length: 7 }, () => app.services.jobs.enqueue({ queue })));
    await vi.waitFor(() => expect(held.count.inFlight).toBe(3), { interval: 10 });
    // A worker over its limit would claim again as soon as the third job started; every claim it made has
    // now returned, and three of them took a job.
    await claimsSettled(claims);
    expect(claims.filter((claim) => claim.outcome !== null)).toHaveLength(3);
    expect(held.count.inFlight).toBe(3);
    expect(await app.services.db.prisma.job.count({ where: { queue, status: "running" } })).toBe(3);
    held.open();
    await untilStatus(ids, "completed");
    expect(held.count.most).toBe(3);
  });

  it("keeps a queue to its share of the slots, so that the other queues' jobs still run", async () => {
    const [slow, fast] = [freshQueue(), freshQueue()];
    const held = heldJobs();
    const ran: string[] = [];
    startWorker(
      app.services,
      { [slow]: held.handler, [fast]: async (job) => void ran.push(job.id) },
      { concurrency: 4, shares: { [slow]: 0.5 } },
    );
    const slowIds = await Promise.all(Array.from({ length: 4 }, () => app.services.jobs.enqueue({ queue: slow })));
    await vi.waitFor(() => expect(held.count.inFlight).toBe(2), { timeout: 5_000, interval: 10 });
    const fastIds = await Promise.all(Array.from({ length: 3 }, () => app.services.jobs.enqueue({ queue: fast })));
    await untilStatus(fastIds, "completed");
    expect(ran.sort()).toEqual([...fastIds].sort());
    expect(held.count.inFlight).toBe(2);
    expect(await app.services.db.prisma.job.count({ where: { queue: slow, status: "pending" } })).toBe(2);
    held.open();
    await untilStatus(slowIds, "completed");
  });

  it("gives a queue's next job its slot as soon as the slot is free, though the other queues had nothing", async () => {
    const [queue, idle] = [freshQueue(), freshQueue()];
    const held = heldJobs();
    // No poll comes to the rescue: with the other queue empty, the slot's release itself must bring the next claim.
    startWorker(
      app.services,
      { [queue]: held.handler, [idle]: async () => undefined },
      { concurrency: 4, shares: { [queue]: 0.25 }, pollMs: 600_000 },
    );
    const ids = await Promise.all(Array.from({ length: 3 }, () => app.services.jobs.enqueue({ queue })));
    await vi.waitFor(() => expect(held.count.inFlight).toBe(1), { timeout: 5_000, interval: 10 });
    expect(await app.services.db.prisma.job.count({ where: { queue, status: "pending" } })).toBe(2);
    held.open();
    await untilStatus(ids, "completed");
    expect(held.count.most).toBe(1);
  });

  it("hands a job whose worker died to another worker once the lease expires; the job shows 2 attempts", async () => {
    const queue = freshQueue();
    const id = await app.services.jobs.enqueue({ queue });
    // The dying worker: claims with a short lease, then never heartbeats, completes or fails.
    const claimed = await app.services.jobs.claim("worker-that-dies", [queue], 1_000);
    expect(claimed).toMatchObject({ id, attempts: 1 });
    const { lockedUntil } = await jobRow(id);

    const runs: Array<{ attempts: number; claimedAt: Date }> = [];
    startWorker(
      secondInstance,
      // A claim stamps updated_at with the database's clock; heartbeats do not touch it.
      { [queue]: async (job) => void runs.push({ attempts: job.attempts, claimedAt: (await jobRow(job.id)).updatedAt }) },
      { concurrency: 2 },
    );

    await untilStatus([id], "completed");
    expect(runs).toEqual([{ attempts: 2, claimedAt: expect.any(Date) }]);
    // Taken over only once the lease had run out, although the new worker polled for it all along.
    expect(runs[0]!.claimedAt.getTime()).toBeGreaterThanOrEqual(lockedUntil!.getTime());
    expect(await jobRow(id)).toMatchObject({ status: "completed", attempts: 2, lockedBy: null });
  });

  it("keeps the lease of a job that runs longer than leaseMs by heartbeating, so no other worker takes it", async () => {
    const queue = freshQueue();
    const runs: string[] = [];
    const claims = recordClaims(app.services.jobs, secondInstance.jobs);
    // Runs until its first lease has run out by the database's clock and a claim made since has found
    // nothing to take: without heartbeats, that claim would have taken this job.
    const slow =
      (name: string): JobHandler =>
      async (job) => {
        runs.push(name);
        const { lockedUntil } = await jobRow(job.id);
        await untilDatabaseClockPasses(app.services, lockedUntil!);
        await vi.waitFor(
          () =>
            expect(
              claims.some((c) => c.queues.includes(queue) && c.startedAt > lockedUntil!.getTime() && c.outcome === null),
            ).toBe(true),
          { interval: 20 },
        );
      };
    const options = { concurrency: 2, leaseMs: 400 };
    startWorker(app.services, { [queue]: slow("first") }, options);
    startWorker(secondInstance, { [queue]: slow("second") }, options);
    const id = await app.services.jobs.enqueue({ queue });
    await untilStatus([id], "completed", 30_000);
    expect(runs).toHaveLength(1);
    expect((await jobRow(id)).attempts).toBe(1);
  });

  describe("on failure", () => {
    const saved = { ...backoff };
    beforeAll(() => {
      backoff.baseMs = 20;
    });
    afterAll(() => {
      Object.assign(backoff, saved);
    });

    it("retries a failing job with backoff until it succeeds", async () => {
      const queue = freshQueue();
      const runs: number[] = [];
      startWorker(
        app.services,
        {
          [queue]: async (job) => {
            runs.push(performance.now());
            if (job.attempts < 3) throw new Error(`flaky ${job.attempts}`);
          },
        },
        { concurrency: 2 },
      );
      const id = await app.services.jobs.enqueue({ queue, maxAttempts: 5 });
      await untilStatus([id], "completed", 5_000);
      expect(runs).toHaveLength(3);
      expect(await jobRow(id)).toMatchObject({ attempts: 3, lastError: "flaky 2" });
      // The first retry waits at least half of baseMs, the second at least half of twice that.
      expect(runs[1]! - runs[0]!).toBeGreaterThanOrEqual(0.5 * backoff.baseMs - 2);
      expect(runs[2]! - runs[1]!).toBeGreaterThanOrEqual(backoff.baseMs - 2);
    });

    it("waits the delay a RetryLater asks for before running the job again", async () => {
      const queue = freshQueue();
      const runs: number[] = [];
      startWorker(
        app.services,
        {
          [queue]: async (job) => {
            runs.push(performance.now());
            if (job.attempts === 1) throw new RetryLater("rate limited, Retry-After: 0.4", 400);
          },
        },
        { concurrency: 2 },
      );
      const id = await app.services.jobs.enqueue({ queue });
      await untilStatus([id], "completed", 5_000);
      expect(runs).toHaveLength(2);
      expect(runs[1]! - runs[0]!).toBeGreaterThanOrEqual(395);
    });

    it("gives up after maxAttempts and leaves the job in the dead letters with its last error", async () => {
      const queue = freshQueue();
      let runs = 0;
      const claims = recordClaims(app.services.jobs);
      startWorker(
        app.services,
        {
          [queue]: async (job) => {
            runs++;
            throw new Error(`still down (attempt ${job.attempts})`);
          },
        },
        { concurrency: 2 },
      );
      const id = await app.services.jobs.enqueue({ queue, maxAttempts: 3 });
      await untilStatus([id], "dead", 5_000);
      // The worker's next claims, which would run it a fourth time if a dead job could be claimed.
      const claimsSoFar = claims.length;
      await vi.waitFor(() => expect(claims.length).toBeGreaterThan(claimsSoFar + 1), { interval: 20 });
      await claimsSettled(claims);
      expect(runs).toBe(3);
      expect(await jobRow(id)).toMatchObject({ status: "dead", attempts: 3, lastError: "still down (attempt 3)" });
    });
  });

  it("wakes up when a job is enqueued instead of waiting for its next poll", async () => {
    const queue = freshQueue();
    const claims = recordClaims(secondInstance.jobs);
    // A poll far longer than the test may take: every claim after the first comes from an announcement.
    startWorker(secondInstance, { [queue]: async () => undefined }, { concurrency: 1, pollMs: 600_000 });
    // Announcements from the enqueueing instance reach the worker once a bare one makes it claim again.
    await vi.waitFor(
      () => {
        app.services.jobs.announce(queue);
        expect(claims.length).toBeGreaterThan(1);
      },
      { interval: 50 },
    );
    const id = await app.services.jobs.enqueue({ queue });
    await untilStatus([id], "completed", 30_000);
  });

  it("stops gracefully: stop() waits for the jobs in hand to finish and claims nothing new", async () => {
    const queue = freshQueue();
    const held = gate();
    const started: string[] = [];
    const finished: string[] = [];
    const claims = recordClaims(app.services.jobs);
    const worker = startWorker(
      app.services,
      {
        [queue]: async (job) => {
          started.push(job.id);
          await held.opened;
          finished.push(job.id);
        },
      },
      { concurrency: 3, pollMs: 600_000 },
    );
    const inHand = [await app.services.jobs.enqueue({ queue }), await app.services.jobs.enqueue({ queue })];
    await vi.waitFor(() => expect(started).toHaveLength(2), { interval: 10 });
    // The claim the free slot makes next has found nothing: stop() finds the worker idle rather than mid-claim.
    await vi.waitFor(() => expect(claims.at(-1)?.outcome).toBeNull(), { interval: 10 });
    const announcements = await hearAnnouncements(app.services);

    let stopped = false;
    const stopping = worker.stop().then(() => {
      stopped = true;
    });
    const claimsBeforeStop = claims.length;
    // A free slot and a due job while stopping: it must stay in the queue for the next worker. Once its
    // announcement is heard here, the worker would have heard it too, had it still been listening.
    const later = await app.services.jobs.enqueue({ queue });
    await vi.waitFor(() => expect(announcements.heard).toContain(queue), { interval: 10 });
    await claimsSettled(claims);
    expect(claims).toHaveLength(claimsBeforeStop);
    expect(stopped).toBe(false);
    expect(finished).toEqual([]);

    held.open();
    await stopping;
    expect(finished.sort()).toEqual([...inHand].sort());
    await untilStatus(inHand, "completed", 1_000);

    announcements.heard.length = 0;
    await app.services.jobs.enqueue({ queue });
    await vi.waitFor(() => expect(announcements.heard).toContain(queue), { interval: 10 });
    announcements.stop();
    expect(claims).toHaveLength(claimsBeforeStop);
    expect(started.sort()).toEqual([...inHand].sort());
    expect(await jobRow(later)).toMatchObject({ status: "pending", attempts: 0 });
  });

  it("stops at once when stop() comes while a claim is under way, without waiting for its next poll", async () => {
    const queue = freshQueue();
    const claimHeld = gate();
    const claim = app.services.jobs.claim.bind(app.services.jobs);
    let claiming = false;
    vi.spyOn(app.services.jobs, "claim").mockImplementation(async (...args) => {
      claiming = true;
      await claimHeld.opened;
      return claim(...args);
    });
    const worker = startWorker(app.services, { [queue]: async () => undefined }, { concurrency: 1, pollMs: 600_000 });
    await vi.waitFor(() => expect(claiming).toBe(true), { interval: 10 });
    const stopped = worker.stop();
    claimHeld.open();
    // The poll is ten minutes: only a loop that sees the stop after its claim ends before the test's timeout.
    await stopped;
  });

  it("can be started again after stop()", async () => {
    const queue = freshQueue();
    const runs: string[] = [];
    const worker = startWorker(app.services, { [queue]: async (job) => void runs.push(job.id) }, { concurrency: 1 });
    await worker.stop();
    const id = await app.services.jobs.enqueue({ queue });
    worker.start();
    await untilStatus([id], "completed", 5_000);
    expect(runs).toEqual([id]);
  });
});
