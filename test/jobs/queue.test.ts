import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { Prisma } from "../../src/db/generated/prisma/client.js";
import { newId } from "../../src/db/ids.js";
import { backoff, type JobQueue, PermanentJobError, RetryLater, retryDelayMs } from "../../src/jobs/queue.js";
import { Worker } from "../../src/jobs/worker.js";
import { JobsDocument, RetryJobDocument } from "../generated.js";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { untilDatabaseClockPasses, untilLeaseRunsOut } from "../helpers/jobs.js";

let app: TestApp;
let jobs: JobQueue;
let tenant: { tenantId: string; apiKey: string };

beforeAll(async () => {
  app = await startTestApp();
  jobs = app.services.jobs;
  tenant = await app.tenant("Jobs Bank");
});
afterAll(() => app?.close());

let queues = 0;
/** Each test works on its own queue, so claims never see another test's jobs. */
const freshQueue = () => `test-queue-${++queues}`;

const jobRow = (id: string) => app.services.db.prisma.job.findUniqueOrThrow({ where: { id } });

/** The delay `fail` scheduled, measured on the database's clock (run_at and updated_at come from one now()). */
async function scheduledDelayMs(id: string): Promise<number> {
  const [row] = await app.services.db.sql.query<{ ms: string | number }>(
    "SELECT EXTRACT(EPOCH FROM run_at - updated_at) * 1000 AS ms FROM jobs WHERE id = $1",
    [id],
  );
  return Number(row!.ms);
}

async function makeDue(id: string): Promise<void> {
  await app.services.db.sql.query("UPDATE jobs SET run_at = now() - interval '1 second' WHERE id = $1", [id]);
}

async function claimOne(queue: string, workerId = "worker-a", leaseMs = 30_000) {
  const job = await jobs.claim(workerId, [queue], leaseMs);
  expect(job).not.toBeNull();
  return job!;
}

describe("retryDelayMs", () => {
  const noJitter = () => 0.5;

  it("doubles the delay with every attempt, starting from backoff.baseMs", () => {
    expect([1, 2, 3, 4, 5].map((attempt) => retryDelayMs(attempt, noJitter))).toEqual([
      backoff.baseMs,
      2 * backoff.baseMs,
      4 * backoff.baseMs,
      8 * backoff.baseMs,
      16 * backoff.baseMs,
    ]);
  });

  it("jitters every delay within ±50 % so that failing jobs do not retry in lockstep", () => {
    expect(retryDelayMs(3, () => 0)).toBe(2 * backoff.baseMs);
    expect(retryDelayMs(3, () => 0.999_999)).toBe(6 * backoff.baseMs);
    const samples = Array.from({ length: 500 }, () => retryDelayMs(4));
    for (const delay of samples) {
      expect(delay).toBeGreaterThanOrEqual(4 * backoff.baseMs);
      expect(delay).toBeLessThanOrEqual(12 * backoff.baseMs);
    }
    expect(new Set(samples).size).toBeGreaterThan(100);
  });

  it("never waits longer than backoff.maxMs, however many attempts have failed", () => {
    for (const attempt of [15, 30, 100, 10_000]) {
      expect(retryDelayMs(attempt, () => 0.999_999)).toBeLessThanOrEqual(backoff.maxMs);
      expect(retryDelayMs(attempt, () => 0)).toBeGreaterThanOrEqual(backoff.maxMs / 2);
    }
  });
});

describe("enqueue", () => {
  it("creates no job when the caller's transaction rolls back, and exactly one when it commits", async () => {
    const queue = freshQueue();
    const conversationId = newId("conv");
    const prisma = app.services.db.prisma;
    await expect(
      prisma.$transaction(async (tx) => {
        await tx.conversation.create({ data: { id: conversationId, tenantId: tenant.tenantId, channel: "api" } });
        await jobs.enqueue({ queue, tenantId: tenant.tenantId, payload: { conversationId } }, tx);
        throw new Error("the request failed after enqueueing");
      }),
    ).rejects.toThrow("the request failed after enqueueing");
    expect(await prisma.job.count({ where: { queue } })).toBe(0);
    expect(await prisma.conversation.count({ where: { id: conversationId } })).toBe(0);

    const jobId = await prisma.$transaction(async (tx) => {
      await tx.conversation.create({ data: { id: conversationId, tenantId: tenant.tenantId, channel: "api" } });
      return jobs.enqueue({ queue, tenantId: tenant.tenantId, payload: { conversationId } }, tx);
    });
    const created = await prisma.job.findMany({ where: { queue } });
    expect(created.map((j) => j.id)).toEqual([jobId]);
    expect(created[0]).toMatchObject({ status: "pending", attempts: 0, payload: { conversationId } });
  });

  it("hands the payload to the worker that claims the job", async () => {
    const queue = freshQueue();
    const payload = { messageId: "msg_1", nested: { list: [1, 2, 3] }, text: "Habari 👋 'quoted'" };
    const id = await jobs.enqueue({ queue, tenantId: tenant.tenantId, payload });
    expect(await claimOne(queue)).toMatchObject({ id, queue, tenantId: tenant.tenantId, payload, attempts: 1, maxAttempts: 8 });
  });

  it("treats a second enqueue with the same dedupeKey as a no-op while the first is pending, returning the first job", async () => {
    const queue = freshQueue();
    const first = await jobs.enqueue({ queue, dedupeKey: "resync:src_1", payload: { n: 1 } });
    const second = await jobs.enqueue({ queue, dedupeKey: "resync:src_1", payload: { n: 2 } });
    expect(second).toBe(first);
    const rows = await app.services.db.prisma.job.findMany({ where: { queue } });
    expect(rows.map((r) => [r.id, r.payload])).toEqual([[first, { n: 1 }]]);
  });

  it("accepts the same dedupeKey again once the first job has completed", async () => {
    const queue = freshQueue();
    const first = await jobs.enqueue({ queue, dedupeKey: "send:msg_1" });
    const job = await claimOne(queue);
    await jobs.complete(job.id, "worker-a");
    const second = await jobs.enqueue({ queue, dedupeKey: "send:msg_1" });
    expect(second).not.toBe(first);
    expect((await jobRow(second)).status).toBe("pending");
    expect(await app.services.db.prisma.job.count({ where: { queue } })).toBe(2);
  });

  it("keeps dedupeKeys apart per queue", async () => {
    const [a, b] = [freshQueue(), freshQueue()];
    expect(await jobs.enqueue({ queue: a, dedupeKey: "same" })).not.toBe(await jobs.enqueue({ queue: b, dedupeKey: "same" }));
  });

  it("does not hand out a job before its runAt", async () => {
    const queue = freshQueue();
    await jobs.enqueue({ queue, runAt: new Date(Date.now() + 60 * 60_000) });
    expect(await jobs.claim("worker-a", [queue], 30_000)).toBeNull();
  });

  it("refuses a maxAttempts below 1", async () => {
    await expect(jobs.enqueue({ queue: freshQueue(), maxAttempts: 0 })).rejects.toThrow(/maxAttempts/);
  });
});

describe("enqueueUnless", () => {
  const unless = (queue: string, dedupeKey: string, done = false) =>
    jobs.enqueueUnless(
      { queue, tenantId: tenant.tenantId, payload: { dedupeKey }, dedupeKey },
      done ? Prisma.sql`TRUE` : Prisma.sql`FALSE`,
    );

  it("gives jobs asked for at the same moment what each alone would get: a key asked twice one job, a job already done none", async () => {
    const queue = freshQueue();
    const ids = await Promise.all([unless(queue, "a"), unless(queue, "b"), unless(queue, "a"), unless(queue, "c", true)]);
    expect(ids[0]).toMatch(/^job_/);
    expect(ids[1]).toMatch(/^job_/);
    expect(ids.slice(2)).toEqual([null, null]);
    const rows = await app.services.db.prisma.job.findMany({ where: { queue }, orderBy: { dedupeKey: "asc" } });
    expect(rows.map((r) => [r.id, r.dedupeKey])).toEqual([
      [ids[0], "a"],
      [ids[1], "b"],
    ]);
    expect(await unless(queue, "a")).toBeNull();
  });

  it("fails only the job the database refuses, not the others asked for with it", async () => {
    const queue = freshQueue();
    const refused = jobs.enqueueUnless({ queue, tenantId: "ten_unknown", dedupeKey: "x" }, Prisma.sql`FALSE`);
    const [before, after] = await Promise.all([unless(queue, "before"), unless(queue, "after"), refused.catch(() => null)]);
    await expect(refused).rejects.toThrow(/foreign key/);
    const rows = await app.services.db.prisma.job.findMany({ where: { queue } });
    expect(rows.map((r) => r.id).sort()).toEqual([before, after].sort());
  });
});

describe("claim", () => {
  it("hands each due job to exactly one of many concurrent claimers", async () => {
    const queue = freshQueue();
    const ids = await Promise.all(Array.from({ length: 10 }, (_, n) => jobs.enqueue({ queue, payload: { n } })));
    const claims = await Promise.all(Array.from({ length: 25 }, (_, n) => jobs.claim(`claimer-${n}`, [queue], 30_000)));
    const claimed = claims.filter((job) => job !== null);
    expect(claimed.map((job) => job.id).sort()).toEqual([...ids].sort());
    expect(claimed.every((job) => job.attempts === 1)).toBe(true);
  });

  it("only claims from the queues it is asked for, oldest run_at first", async () => {
    const [mine, other] = [freshQueue(), freshQueue()];
    await jobs.enqueue({ queue: other });
    const later = await jobs.enqueue({ queue: mine, runAt: new Date(Date.now() - 1_000) });
    const earlier = await jobs.enqueue({ queue: mine, runAt: new Date(Date.now() - 5_000) });
    expect((await claimOne(mine)).id).toBe(earlier);
    expect((await claimOne(mine)).id).toBe(later);
    expect(await jobs.claim("worker-a", [mine], 30_000)).toBeNull();
  });

  it("takes back a job whose worker died once its lease has expired, and ignores the dead worker's late report", async () => {
    const queue = freshQueue();
    const id = await jobs.enqueue({ queue });
    await claimOne(queue, "crashed-worker", 1_000);
    const { lockedUntil } = await jobRow(id);

    // The rescuer keeps trying, as an idle worker polls; it gets the job only once the lease has run out.
    const retaken = await vi.waitFor(
      async () => {
        const job = await jobs.claim("rescuer", [queue], 30_000);
        expect(job).not.toBeNull();
        return job!;
      },
      { interval: 20 },
    );
    expect(retaken).toMatchObject({ id, attempts: 2 });
    // A claim stamps updated_at with the clock it judged the lease by.
    expect((await jobRow(id)).updatedAt.getTime()).toBeGreaterThanOrEqual(lockedUntil!.getTime());

    await jobs.complete(id, "crashed-worker");
    expect(await jobs.fail(retaken, "crashed-worker", new Error("too late"))).toBe("retry");
    expect(await jobRow(id)).toMatchObject({ status: "running", lockedBy: "rescuer", attempts: 2, lastError: null });

    await jobs.complete(id, "rescuer");
    expect(await jobRow(id)).toMatchObject({ status: "completed", lockedBy: null, attempts: 2 });
  });

  it("does not take back a job whose lease its worker keeps extending", async () => {
    const queue = freshQueue();
    const id = await jobs.enqueue({ queue });
    await claimOne(queue, "busy-worker", 200);
    const { lockedUntil: firstLease } = await jobRow(id);
    expect(await jobs.extendLease(id, "busy-worker", 60_000)).toBe(true);
    expect(await jobs.extendLease(id, "someone-else", 60_000)).toBe(false);
    await untilDatabaseClockPasses(app.services, firstLease!);
    expect(await jobs.claim("rescuer", [queue], 30_000)).toBeNull();
  });

  it("sends a job to the dead letters when its worker died on the last attempt", async () => {
    const queue = freshQueue();
    const id = await jobs.enqueue({ queue, maxAttempts: 1, tenantId: tenant.tenantId });
    await claimOne(queue, "crashed-worker", 100);
    await untilLeaseRunsOut(app.services, id);
    expect(await jobs.claim("rescuer", [queue], 30_000)).toBeNull();
    const row = await jobRow(id);
    expect(row).toMatchObject({ status: "dead", attempts: 1, lockedBy: null, lockedUntil: null });
    expect(row.lastError).toMatch(/lease expired/i);
    expect(row.finishedAt).not.toBeNull();
  });
});

describe("fair claiming across queues", () => {
  /** A backlog of `count` due jobs in one queue, enqueued before anything else (run_at in the past). */
  async function backlog(queue: string, count: number): Promise<void> {
    await app.services.db.sql.query(
      `INSERT INTO jobs (id, queue, payload, run_at, updated_at)
       SELECT 'job_backlog_' || $1 || '_' || g, $1, '{}'::jsonb, now() - interval '1 minute' + g * interval '1 millisecond', now()
         FROM generate_series(1, $2::int) g`,
      [queue, count],
    );
  }

  it("claims from the first queue of the given order that has a due job, whatever the other queues' backlog", async () => {
    const [inbound, send] = [freshQueue(), freshQueue()];
    await backlog(inbound, 50);
    const sendId = await jobs.enqueue({ queue: send });
    expect((await jobs.claim("worker-a", [send, inbound], 30_000))?.id).toBe(sendId);
    expect((await jobs.claim("worker-a", [send, inbound], 30_000))?.queue).toBe(inbound);
  });

  it("has a worker claim an outbound send enqueued behind a backlog of 300 inbound jobs at its next turn", async () => {
    const [inbound, send] = [freshQueue(), freshQueue()];
    await backlog(inbound, 300);
    await jobs.enqueue({ queue: send });
    const claimed: string[] = [];
    const record = async (job: { queue: string }) => {
      claimed.push(job.queue);
    };
    const worker = new Worker(app.services, { [inbound]: record, [send]: record }, { concurrency: 1, pollMs: 25 });
    worker.start();
    try {
      await vi.waitFor(() => expect(claimed).toContain(send), { timeout: 60_000, interval: 20 });
    } finally {
      await worker.stop();
    }
    // Round-robin: one inbound job, then the send, although 299 older inbound jobs were still due.
    expect(claimed.indexOf(send)).toBeLessThanOrEqual(1);
  });
});

describe("fail", () => {
  it("schedules a failed job again after an exponential backoff with jitter", async () => {
    const queue = freshQueue();
    const id = await jobs.enqueue({ queue, maxAttempts: 6 });
    for (let attempt = 1; attempt <= 4; attempt++) {
      const job = await claimOne(queue);
      expect(job.attempts).toBe(attempt);
      expect(await jobs.fail(job, "worker-a", new Error(`boom ${attempt}`))).toBe("retry");
      expect(await jobRow(id)).toMatchObject({
        status: "pending",
        lastError: `boom ${attempt}`,
        lockedBy: null,
        lockedUntil: null,
      });
      const exponential = backoff.baseMs * 2 ** (attempt - 1);
      const delay = await scheduledDelayMs(id);
      expect(delay).toBeGreaterThanOrEqual(0.5 * exponential - 1);
      expect(delay).toBeLessThanOrEqual(1.5 * exponential + 1);
      expect(await jobs.claim("worker-a", [queue], 30_000)).toBeNull();
      await makeDue(id);
    }
  });

  it("retries at the time a RetryLater asks for", async () => {
    const queue = freshQueue();
    const id = await jobs.enqueue({ queue });
    const job = await claimOne(queue);
    expect(await jobs.fail(job, "worker-a", new RetryLater("provider said Retry-After: 42", 42_000))).toBe("retry");
    expect(await jobRow(id)).toMatchObject({ status: "pending", lastError: "provider said Retry-After: 42" });
    expect(Math.abs((await scheduledDelayMs(id)) - 42_000)).toBeLessThanOrEqual(1);
  });

  it("sends a job that throws PermanentJobError straight to the dead letters", async () => {
    const queue = freshQueue();
    const id = await jobs.enqueue({ queue, maxAttempts: 8 });
    const job = await claimOne(queue);
    expect(await jobs.fail(job, "worker-a", new PermanentJobError("the channel was deleted"))).toBe("dead");
    const row = await jobRow(id);
    expect(row).toMatchObject({ status: "dead", attempts: 1, lastError: "the channel was deleted", lockedBy: null });
    expect(row.finishedAt).not.toBeNull();
  });

  it("sends a job to the dead letters when its last attempt fails", async () => {
    const queue = freshQueue();
    const id = await jobs.enqueue({ queue, maxAttempts: 2 });
    expect(await jobs.fail(await claimOne(queue), "worker-a", new Error("first"))).toBe("retry");
    await makeDue(id);
    expect(await jobs.fail(await claimOne(queue), "worker-a", new Error("second"))).toBe("dead");
    expect(await jobRow(id)).toMatchObject({ status: "dead", attempts: 2, lastError: "second" });
    expect(await jobs.claim("worker-a", [queue], 30_000)).toBeNull();
  });

  it("records what was thrown when it is not an Error", async () => {
    const queue = freshQueue();
    const id = await jobs.enqueue({ queue });
    await jobs.fail(await claimOne(queue), "worker-a", "a bare string");
    expect((await jobRow(id)).lastError).toBe("a bare string");
  });
});

describe("depth", () => {
  it("counts pending, running and dead jobs per queue", async () => {
    const queue = freshQueue();
    await jobs.enqueue({ queue });
    await jobs.enqueue({ queue });
    await jobs.enqueue({ queue, maxAttempts: 1 });
    await claimOne(queue);
    await jobs.fail(await claimOne(queue), "worker-a", new PermanentJobError("no"));
    const counts = (await jobs.depth()).filter((d) => d.queue === queue);
    expect(counts.sort((a, b) => a.status.localeCompare(b.status))).toEqual([
      { queue, status: "dead", count: 1 },
      { queue, status: "pending", count: 1 },
      { queue, status: "running", count: 1 },
    ]);
  });
});

describe("dead letters in GraphQL", () => {
  const saved = { ...backoff };
  let worker: Worker | null = null;
  beforeAll(() => {
    backoff.baseMs = 5;
  });
  afterAll(() => {
    Object.assign(backoff, saved);
  });
  afterEach(async () => {
    await worker?.stop();
    worker = null;
  });

  /** A job of `tenantId` that has failed all its attempts. */
  async function deadJob(tenantId: string, options: { maxAttempts?: number; dedupeKey?: string } = {}) {
    const queue = freshQueue();
    const id = await jobs.enqueue({ queue, tenantId, maxAttempts: options.maxAttempts ?? 1, dedupeKey: options.dedupeKey });
    await jobs.fail(await claimOne(queue), "worker-a", new Error("provider said 500"));
    expect((await jobRow(id)).status).toBe("dead");
    return { id, queue };
  }

  it("shows a job that failed all its attempts in jobs(status: dead) with its last error, and retryJob runs it again", async () => {
    const queue = freshQueue();
    let healthy = false;
    const runs: number[] = [];
    const startWorker = () => {
      worker = new Worker(
        app.services,
        {
          [queue]: async (job) => {
            runs.push(job.attempts);
            if (!healthy) throw new Error(`provider said 503 on attempt ${job.attempts}`);
          },
        },
        { concurrency: 2, pollMs: 10, leaseMs: 5_000 },
      );
      worker.start();
    };
    startWorker();
    const id = await jobs.enqueue({ queue, tenantId: tenant.tenantId, maxAttempts: 3 });
    await vi.waitFor(async () => expect((await jobRow(id)).status).toBe("dead"), { timeout: 5_000, interval: 10 });
    expect(runs).toEqual([1, 2, 3]);

    const dead = await app.graphql(JobsDocument, { status: "dead" }, tenant.apiKey);
    expect(dead.errors).toBeUndefined();
    expect(dead.data!.jobs.items).toContainEqual({
      id,
      queue,
      status: "dead",
      attempts: 3,
      lastError: "provider said 503 on attempt 3",
    });
    expect(dead.data!.jobs.items.every((job) => job.status === "dead")).toBe(true);

    // Stopped while retrying, so that the mutation's answer shows the job before a worker takes it.
    await worker!.stop();
    healthy = true;
    const retried = await app.graphql(RetryJobDocument, { id }, tenant.apiKey);
    expect(retried.errors).toBeUndefined();
    expect(retried.data!.retryJob).toEqual({ id, status: "pending", attempts: 0 });
    startWorker();
    await vi.waitFor(async () => expect((await jobRow(id)).status).toBe("completed"), { timeout: 5_000, interval: 10 });
    expect(runs).toEqual([1, 2, 3, 1]);
    expect(await jobRow(id)).toMatchObject({ attempts: 1, finishedAt: expect.any(Date) });

    const after = await app.graphql(JobsDocument, { status: "dead" }, tenant.apiKey);
    expect(after.data!.jobs.items.map((job) => job.id)).not.toContain(id);
  });

  it("puts a dead job back as pending with a fresh set of attempts", async () => {
    const { id } = await deadJob(tenant.tenantId, { maxAttempts: 1 });
    const res = await app.graphql(RetryJobDocument, { id }, tenant.apiKey);
    expect(res.data!.retryJob).toEqual({ id, status: "pending", attempts: 0 });
    expect(await jobRow(id)).toMatchObject({ status: "pending", attempts: 0, lastError: null, finishedAt: null });
  });

  it("answers VALIDATION when retryJob is asked for a job that is not dead", async () => {
    const queue = freshQueue();
    const id = await jobs.enqueue({ queue, tenantId: tenant.tenantId });
    const pending = await app.graphql(RetryJobDocument, { id }, tenant.apiKey);
    expect(pending.errors?.[0]?.extensions?.code).toBe("VALIDATION");
    expect(pending.errors?.[0]?.message).toMatch(/pending/);
    await jobs.complete((await claimOne(queue)).id, "worker-a");
    const completed = await app.graphql(RetryJobDocument, { id }, tenant.apiKey);
    expect(completed.errors?.[0]?.extensions?.code).toBe("VALIDATION");
    expect((await jobRow(id)).status).toBe("completed");
  });

  it("answers VALIDATION, not a crash, when a newer job with the same dedupeKey is already queued", async () => {
    const { id, queue } = await deadJob(tenant.tenantId, { dedupeKey: "send:msg_9" });
    await jobs.enqueue({ queue, tenantId: tenant.tenantId, dedupeKey: "send:msg_9" });
    const res = await app.graphql(RetryJobDocument, { id }, tenant.apiKey);
    expect(res.errors?.[0]?.extensions?.code).toBe("VALIDATION");
    expect(res.errors?.[0]?.message).toMatch(/dedupe/i);
    expect((await jobRow(id)).status).toBe("dead");
  });

  it("never shows or retries another tenant's job (NOT_FOUND)", async () => {
    const other = await app.tenant("Other Bank");
    const { id } = await deadJob(other.tenantId);
    const listed = await app.graphql(JobsDocument, { status: "dead" }, tenant.apiKey);
    expect(listed.data!.jobs.items.map((job) => job.id)).not.toContain(id);
    const res = await app.graphql(RetryJobDocument, { id }, tenant.apiKey);
    expect(res.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    expect((await jobRow(id)).status).toBe("dead");
    const unknown = await app.graphql(RetryJobDocument, { id: "job_doesnotexist" }, tenant.apiKey);
    expect(unknown.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
  });

  it("lets owner and admin keys see and retry dead jobs, and refuses agent and viewer keys (FORBIDDEN)", async () => {
    const { id } = await deadJob(tenant.tenantId);
    for (const role of ["agent", "viewer"] as const) {
      const key = await app.keyFor(tenant.tenantId, role);
      const listed = await app.graphql(JobsDocument, { status: "dead" }, key);
      expect(listed.errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
      const retried = await app.graphql(RetryJobDocument, { id }, key);
      expect(retried.errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
    }
    expect((await jobRow(id)).status).toBe("dead");
    const admin = await app.keyFor(tenant.tenantId, "admin");
    expect((await app.graphql(JobsDocument, { status: "dead" }, admin)).data!.jobs.items.map((job) => job.id)).toContain(id);
    expect((await app.graphql(RetryJobDocument, { id }, admin)).data!.retryJob.status).toBe("pending");
  });

  it("rejects an unknown status filter (VALIDATION)", async () => {
    const res = await app.graphql(JobsDocument, { status: "sleeping" }, tenant.apiKey);
    expect(res.errors?.[0]?.extensions?.code).toBe("VALIDATION");
  });
});
