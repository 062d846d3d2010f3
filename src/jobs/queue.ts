import type { PubSub } from "graphql-yoga";
import type { Logger } from "pino";
import type { Database } from "../db/client.js";
import { Prisma } from "../db/generated/prisma/client.js";
import { newId } from "../db/ids.js";
import type { Topics } from "../realtime/pubsub.js";

export interface JobRecord {
  id: string;
  tenantId: string | null;
  queue: string;
  payload: unknown;
  attempts: number;
  maxAttempts: number;
}

export interface EnqueueInput {
  queue: string;
  payload?: Prisma.InputJsonValue;
  tenantId?: string | null;
  /** Run no earlier than this. */
  runAt?: Date;
  maxAttempts?: number;
  /** While a job with the same queue and key is pending or running, enqueueing again is a no-op. */
  dedupeKey?: string;
}

/** What `revive` did: a job that is not dead, or whose dedupe key a newer live job holds, stays as it is. */
export type ReviveOutcome = "revived" | "not-dead" | "superseded";

/** A job's row as a SELECT that yields nothing when the job is needless. */
interface Row {
  id: string;
  select: Prisma.Sql;
}

/** A job waiting for the next statement, with its caller's promise. */
interface Waiting {
  row: Row;
  queue: string;
  resolve(id: string | null): void;
  reject(err: unknown): void;
}

// Far more than arrive during one statement at hundreds of webhooks a second, and far below the parameter limit.
const maxBatch = 200;

/** A transaction (or the plain client) to enqueue with, so a job is created with the data it belongs to. */
type Executor = Pick<Prisma.TransactionClient, "$queryRaw">;

/** Thrown by a handler to ask for a retry at a given time (e.g. a provider's Retry-After). */
export class RetryLater extends Error {
  constructor(
    message: string,
    readonly delayMs: number,
  ) {
    super(message);
  }
}

/** Thrown by a handler when retrying cannot help: the job goes straight to the dead letters. */
export class PermanentJobError extends Error {}

export const backoff = { baseMs: 1_000, maxMs: 15 * 60_000 };

/**
 * Exponential backoff with ±50 % jitter so that many failing jobs do not retry in lockstep; capped
 * after the jitter, so that `maxMs` really is the longest a failed job waits.
 */
export function retryDelayMs(attempt: number, random: () => number = Math.random): number {
  const exponential = backoff.baseMs * 2 ** Math.max(0, attempt - 1);
  return Math.round(Math.min(backoff.maxMs, exponential * (0.5 + random())));
}

function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === "23505";
}

/**
 * The job queue is the `jobs` table: enqueue is an INSERT (in the caller's transaction), a worker
 * claims with `FOR UPDATE SKIP LOCKED` and holds a lease; a job whose lease ran out (its worker
 * died) is claimed again by another worker.
 */
export class JobQueue {
  constructor(
    private readonly db: Database,
    private readonly pubsub: PubSub<Topics>,
    private readonly logger: Logger,
  ) {}

  // Jobs enqueued outside a transaction while the statement for others is under way: they go in the next one together.
  private waiting: Waiting[] = [];
  private flushing = false;

  /**
   * Returns the id of the job that will do the work: the new one, or, when `dedupeKey` matched a
   * live job, that job. Jobs without a `runAt` are due by the database's clock, the one `claim` reads.
   */
  async enqueue(input: EnqueueInput, tx?: Executor): Promise<string> {
    // The live job found on a conflict may finish before we read it; then the key is free again.
    for (;;) {
      const id = await this.insert(input, Prisma.sql`FALSE`, tx);
      if (id) return id;
      const live = await this.run<{ id: string }>(
        Prisma.sql`SELECT id FROM jobs WHERE queue = ${input.queue} AND dedupe_key = ${input.dedupeKey ?? null} AND status IN ('pending', 'running')`,
        tx,
      );
      if (live[0]) return live[0].id;
    }
  }

  /**
   * Enqueues the job unless `done` (an SQL condition: the work is done already) holds or a live job has its
   * `dedupeKey`, in one statement: the new job's id, or null when either job or condition makes it needless.
   * What a webhook's acknowledgement costs a message. Outside a transaction the statement is shared with the jobs
   * asked for at the same moment (`flush`).
   */
  async enqueueUnless(input: EnqueueInput, done: Prisma.Sql, tx?: Executor): Promise<string | null> {
    if (tx) return this.insert(input, done, tx);
    const row = this.row(input, done);
    return new Promise((resolve, reject) => {
      // After this turn of the event loop: the other requests read in it join the statement.
      if (!this.waiting.length) setImmediate(() => void this.flush());
      this.waiting.push({ row, queue: input.queue, resolve, reject });
    });
  }

  /**
   * One statement, one commit, for every job waiting: webhooks acknowledged at the same moment wait for one commit
   * together rather than queue for one each (test/bench/README.md, "what an acknowledgement costs"). Should the
   * statement fail, each of its jobs is tried on its own, so that one job's error is not another's.
   */
  private async flush(): Promise<void> {
    if (this.flushing || !this.waiting.length) return;
    this.flushing = true;
    const batch = this.waiting.splice(0, maxBatch);
    try {
      await this.settle(batch).catch(async (err: unknown) => {
        if (batch.length === 1) batch[0]!.reject(err);
        else await Promise.all(batch.map((w) => this.settle([w]).catch(w.reject)));
      });
    } finally {
      this.flushing = false;
      void this.flush();
    }
  }

  /** Inserts the waiting jobs in one statement and answers their callers; throws, answering none, when it fails. */
  private async settle(batch: Waiting[]): Promise<void> {
    const inserted = await this.insertRows(
      batch.map((w) => w.row),
      undefined,
    );
    for (const w of batch) w.resolve(inserted.has(w.row.id) ? w.row.id : null);
    for (const queue of new Set(batch.filter((w) => inserted.has(w.row.id)).map((w) => w.queue))) this.announce(queue);
  }

  /**
   * A statement in the caller's transaction, or else straight through the driver: Prisma's raw queries cost an
   * acknowledgement more of the thread than the database's work for it (test/bench/README.md, "what an
   * acknowledgement costs").
   */
  private run<T>(statement: Prisma.Sql, tx: Executor | undefined): Promise<T[]> {
    return tx ? tx.$queryRaw<T[]>(statement) : this.db.sql.query<T>(statement.text, statement.values);
  }

  /** The job's row as a SELECT, which yields nothing when `unless` holds. */
  private row(input: EnqueueInput, unless: Prisma.Sql): Row {
    const maxAttempts = input.maxAttempts ?? 8;
    if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
      throw new RangeError(`maxAttempts must be a positive integer, not ${maxAttempts}`);
    }
    const id = newId("job");
    // "Due now" is truncated to run_at's milliseconds: timestamptz(3) rounds, so a plain now() could be
    // stored in the future, and a worker woken at once by the announcement would find nothing and wait a poll.
    // The casts say what the driver's untyped parameters are: in a SELECT's list nothing else does.
    const select = Prisma.sql`
      SELECT ${id}::text, ${input.tenantId ?? null}::text, ${input.queue}::text, ${JSON.stringify(input.payload ?? {})}::jsonb,
             COALESCE(${input.runAt ?? null}::timestamptz, date_trunc('milliseconds', now())), ${maxAttempts}::integer,
             ${input.dedupeKey ?? null}::text, now()
       WHERE NOT (${unless})`;
    return { id, select };
  }

  /** Inserts the rows in one statement (joined by UNION ALL): a row that `unless` or a live job's key stops is not. */
  private async insertRows(rows: Row[], tx: Executor | undefined): Promise<Set<string>> {
    const inserted = await this.run<{ id: string }>(
      Prisma.sql`
      INSERT INTO jobs (id, tenant_id, queue, payload, run_at, max_attempts, dedupe_key, updated_at)
      ${Prisma.join(
        rows.map((r) => r.select),
        " UNION ALL ",
      )}
      ON CONFLICT (queue, dedupe_key) WHERE dedupe_key IS NOT NULL AND status IN ('pending', 'running') DO NOTHING
      RETURNING id`,
      tx,
    );
    return new Set(inserted.map((r) => r.id));
  }

  private async insert(input: EnqueueInput, unless: Prisma.Sql, tx: Executor | undefined): Promise<string | null> {
    const row = this.row(input, unless);
    if (!(await this.insertRows([row], tx)).size) return null;
    this.announce(input.queue);
    return row.id;
  }

  /** Wakes idle workers (on every instance when pubsub runs on Redis). */
  announce(queue: string): void {
    this.pubsub.publish("job:enqueued", { queue });
  }

  /**
   * The oldest due job of the first of `queues` (in that order of preference) that has one. A worker
   * rotates the order after each claim, so that a backlog in one queue cannot starve the others.
   * A job whose lease ran out on its last attempt is not run again but buried in the same statement
   * (its workers keep dying or hanging on it: give up rather than crash-loop), and the next one is tried.
   */
  async claim(workerId: string, queues: string[], leaseMs: number): Promise<JobRecord | null> {
    for (;;) {
      const rows = await this.db.sql.query<{
        id: string;
        tenant_id: string | null;
        queue: string;
        payload: unknown;
        status: string;
        attempts: number;
        max_attempts: number;
      }>(
        `UPDATE jobs SET
                status = CASE WHEN attempts < max_attempts THEN 'running' ELSE 'dead' END,
                attempts = CASE WHEN attempts < max_attempts THEN attempts + 1 ELSE attempts END,
                locked_by = CASE WHEN attempts < max_attempts THEN $1 END,
                locked_until = CASE WHEN attempts < max_attempts THEN now() + make_interval(secs => $2::double precision / 1000) END,
                last_error = CASE WHEN attempts < max_attempts THEN last_error ELSE $4 END,
                finished_at = CASE WHEN attempts < max_attempts THEN NULL ELSE now() END,
                updated_at = now()
          WHERE id = (
            SELECT due.id
              FROM unnest($3::text[]) WITH ORDINALITY AS wanted(queue, turn)
             CROSS JOIN LATERAL (
                   SELECT id FROM jobs
                    WHERE jobs.queue = wanted.queue AND status IN ('pending', 'running')
                      AND ((status = 'pending' AND run_at <= now()) OR (status = 'running' AND locked_until < now()))
                    ORDER BY run_at
                    LIMIT 1
                    FOR UPDATE SKIP LOCKED) due
             ORDER BY wanted.turn
             LIMIT 1)
          RETURNING id, tenant_id, queue, payload, status, attempts, max_attempts`,
        [workerId, leaseMs, queues, "Lease expired on the last attempt: its worker died or hung"],
      );
      const row = rows[0];
      if (!row) return null;
      if (row.status === "dead") {
        this.logger.warn({ jobId: row.id, queue: row.queue }, "job moved to the dead letters: lease expired on its last attempt");
        continue;
      }
      return {
        id: row.id,
        tenantId: row.tenant_id,
        queue: row.queue,
        payload: typeof row.payload === "string" ? JSON.parse(row.payload) : row.payload,
        attempts: row.attempts,
        maxAttempts: row.max_attempts,
      };
    }
  }

  /**
   * Running jobs back to pending, for when no worker can be holding one: the embedded database is one
   * process's, so at its start the jobs still running belong to a process that died. Their attempt counts.
   */
  async releaseAbandoned(): Promise<number> {
    const rows = await this.db.sql.query(
      `UPDATE jobs SET status = 'pending', locked_by = NULL, locked_until = NULL, updated_at = now()
        WHERE status = 'running' RETURNING id`,
    );
    if (rows.length) this.logger.warn({ jobs: rows.length }, "jobs of a process that died are due again");
    return rows.length;
  }

  async extendLease(id: string, workerId: string, leaseMs: number): Promise<boolean> {
    const rows = await this.db.sql.query(
      `UPDATE jobs SET locked_until = now() + make_interval(secs => $3::double precision / 1000)
        WHERE id = $1 AND locked_by = $2 AND status = 'running' RETURNING id`,
      [id, workerId, leaseMs],
    );
    return rows.length === 1;
  }

  async complete(id: string, workerId: string): Promise<void> {
    await this.db.sql.query(
      `UPDATE jobs SET status = 'completed', finished_at = now(), locked_by = NULL, locked_until = NULL, updated_at = now()
        WHERE id = $1 AND locked_by = $2`,
      [id, workerId],
    );
  }

  async fail(job: JobRecord, workerId: string, error: unknown): Promise<"retry" | "dead"> {
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof PermanentJobError || job.attempts >= job.maxAttempts) {
      await this.bury(job.id, workerId, message);
      return "dead";
    }
    const delay = error instanceof RetryLater ? error.delayMs : retryDelayMs(job.attempts);
    await this.db.sql.query(
      `UPDATE jobs SET status = 'pending', run_at = now() + make_interval(secs => $3::double precision / 1000),
              last_error = $4, locked_by = NULL, locked_until = NULL, updated_at = now()
        WHERE id = $1 AND locked_by = $2`,
      [job.id, workerId, delay, message],
    );
    return "retry";
  }

  private async bury(id: string, workerId: string, message: string): Promise<void> {
    this.logger.warn({ jobId: id, error: message }, "job moved to the dead letters");
    await this.db.sql.query(
      `UPDATE jobs SET status = 'dead', last_error = $3, finished_at = now(), locked_by = NULL, locked_until = NULL, updated_at = now()
        WHERE id = $1 AND locked_by = $2`,
      [id, workerId, message],
    );
  }

  /**
   * A dead job back to the queue, with a fresh set of attempts, due now (truncated as in `enqueue`). Not when a newer live job holds its
   * dedupe key: that one does the same work, and both running would do it twice.
   */
  async revive(id: string, tenantId: string): Promise<ReviveOutcome> {
    let rows: Array<{ queue: string }>;
    try {
      rows = await this.db.sql.query<{ queue: string }>(
        `UPDATE jobs SET status = 'pending', attempts = 0, run_at = date_trunc('milliseconds', now()), last_error = NULL, finished_at = NULL, updated_at = now()
          WHERE id = $1 AND tenant_id = $2 AND status = 'dead'
            AND NOT EXISTS (SELECT 1 FROM jobs live
                             WHERE live.queue = jobs.queue AND live.dedupe_key = jobs.dedupe_key AND live.status IN ('pending', 'running'))
          RETURNING queue`,
        [id, tenantId],
      );
    } catch (err) {
      // A live job with the key was enqueued concurrently, after this statement's snapshot.
      if (isUniqueViolation(err)) return "superseded";
      throw err;
    }
    const queue = rows[0]?.queue;
    if (queue !== undefined) {
      this.announce(queue);
      return "revived";
    }
    const [current] = await this.db.sql.query<{ status: string }>("SELECT status FROM jobs WHERE id = $1 AND tenant_id = $2", [
      id,
      tenantId,
    ]);
    return current?.status === "dead" ? "superseded" : "not-dead";
  }

  async depth(): Promise<Array<{ queue: string; status: string; count: number }>> {
    const rows = await this.db.sql.query<{ queue: string; status: string; count: string | number }>(
      `SELECT queue, status, count(*) AS count FROM jobs WHERE status IN ('pending', 'running', 'dead') GROUP BY queue, status`,
    );
    return rows.map((r) => ({ queue: r.queue, status: r.status, count: Number(r.count) }));
  }
}
