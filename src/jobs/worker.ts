import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { Logger } from "pino";
import type { Services } from "../services.js";
import type { JobQueue, JobRecord } from "./queue.js";

export type JobHandler = (job: JobRecord, services: Services) => Promise<void>;

export interface WorkerOptions {
  concurrency: number;
  /** How often an idle worker looks for due jobs (retries become due without an announcement). */
  pollMs: number;
  /** How long a claimed job stays reserved without a heartbeat. */
  leaseMs: number;
  /**
   * The most of `concurrency` a queue may hold at once (0.5: half the slots, at least one), for work that can
   * wait on others: tenants' slow event endpoints must not hold up the replies to customers.
   */
  shares: Record<string, number>;
}

const defaults: Omit<WorkerOptions, "leaseMs"> = { concurrency: 4, pollMs: 1_000, shares: {} };

/** The queues in the order the next claim prefers them: the one just served goes last (round-robin). */
export function servedLast(order: string[], served: string): string[] {
  const at = order.indexOf(served);
  return at === -1 ? order : [...order.slice(at + 1), ...order.slice(0, at + 1)];
}

/**
 * Runs handlers for the queues it is given, `concurrency` jobs at a time. `stop()` stops claiming
 * and waits for the jobs in hand, so a graceful shutdown loses nothing.
 */
export class Worker {
  readonly id = `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`;
  private readonly options: WorkerOptions;
  private readonly running = new Set<Promise<void>>();
  private readonly runningByQueue = new Map<string, number>();
  private stopped = true;
  private wake: (() => void) | null = null;
  /** An announcement that arrived while the loop was claiming rather than waiting: claim again at once. */
  private announced = false;
  private loop: Promise<void> | null = null;
  private unsubscribe: (() => void) | null = null;

  constructor(
    private readonly services: Services,
    private readonly handlers: Record<string, JobHandler>,
    options: Partial<WorkerOptions> = {},
  ) {
    this.options = { ...defaults, leaseMs: services.config.JOB_LEASE_MS, ...options };
  }

  private get queue(): JobQueue {
    return this.services.jobs;
  }

  private get log(): Logger {
    return this.services.logger;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    const queues = new Set(Object.keys(this.handlers));
    const iterator = this.services.realtime.pubsub.subscribe("job:enqueued")[Symbol.asyncIterator]();
    this.unsubscribe = () => void iterator.return?.();
    void (async () => {
      try {
        for (;;) {
          const next = await iterator.next();
          if (next.done) return;
          // A job of a queue at its share waits for a slot of that queue: the slot's release nudges, not this.
          const queue = (next.value as { queue: string }).queue;
          if (queues.has(queue) && this.hasRoom(queue)) this.nudge();
        }
      } catch (err) {
        if (!this.stopped) this.log.warn({ err }, "job announcements lost: this worker now only polls");
      }
    })();
    this.loop = this.run([...queues]);
  }

  private nudge(): void {
    if (this.wake) this.wake();
    else this.announced = true;
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.unsubscribe?.();
    this.wake?.();
    await this.loop;
    await Promise.allSettled([...this.running]);
  }

  /** Whether the queue may have one more job running here (its share of the slots). */
  private hasRoom(queue: string): boolean {
    const share = this.options.shares[queue];
    if (share === undefined) return true;
    return (this.runningByQueue.get(queue) ?? 0) < Math.max(1, Math.floor(this.options.concurrency * share));
  }

  private async run(queues: string[]): Promise<void> {
    let order = queues;
    while (!this.stopped) {
      const open = order.filter((q) => this.hasRoom(q));
      if (this.running.size >= this.options.concurrency || !open.length) {
        await Promise.race(this.running);
        continue;
      }
      let job: JobRecord | null = null;
      this.announced = false;
      try {
        job = await this.queue.claim(this.id, open, this.options.leaseMs);
      } catch (err) {
        if (!this.stopped) this.log.error({ err }, "claiming a job failed");
      }
      if (job) {
        order = servedLast(order, job.queue);
        const queue = job.queue;
        this.runningByQueue.set(queue, (this.runningByQueue.get(queue) ?? 0) + 1);
        const task = this.execute(job).finally(() => {
          this.running.delete(task);
          this.runningByQueue.set(queue, (this.runningByQueue.get(queue) ?? 1) - 1);
          // A queue kept to its share may have jobs waiting for this slot while the others had none to claim.
          this.nudge();
        });
        this.running.add(task);
        continue;
      }
      // stop() may have come while the claim was under way, when there was no wait yet for it to cut short.
      if (this.announced || this.stopped) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.options.pollMs);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
  }

  private async execute(job: JobRecord): Promise<void> {
    const handler = this.handlers[job.queue];
    let settled = false;
    // Three heartbeats per lease, so that one slow or lost round trip does not let the lease lapse.
    const heartbeat = setInterval(() => {
      this.queue.extendLease(job.id, this.id, this.options.leaseMs).then(
        (held) => {
          // After the handler settled, complete or fail releases the lease: that is no loss.
          if (!held && !settled)
            this.log.warn({ jobId: job.id, queue: job.queue }, "job lease lost: another worker may run it too");
        },
        (err) => this.log.warn({ err, jobId: job.id }, "extending a job lease failed"),
      );
    }, this.options.leaseMs / 3);
    const started = performance.now();
    try {
      if (!handler) throw new Error(`No handler for queue ${job.queue}`);
      await handler(job, this.services).finally(() => {
        settled = true;
      });
      await this.queue.complete(job.id, this.id);
      this.log.debug({ jobId: job.id, queue: job.queue, ms: Math.round(performance.now() - started) }, "job done");
    } catch (err) {
      const outcome = await this.queue.fail(job, this.id, err).catch((e) => {
        this.log.error({ err: e, jobId: job.id }, "recording a job failure failed");
        return "unknown";
      });
      this.log.warn({ jobId: job.id, queue: job.queue, attempt: job.attempts, outcome, err }, "job failed");
    } finally {
      clearInterval(heartbeat);
    }
  }
}
