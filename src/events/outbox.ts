import type { PubSub } from "graphql-yoga";
import type { Logger } from "pino";
import type { Config } from "../config.js";
import type { Prisma } from "../db/generated/prisma/client.js";
import { newId } from "../db/ids.js";
import type { Statements } from "../db/statements.js";
import type { JobQueue } from "../jobs/queue.js";
import type { Topics } from "../realtime/pubsub.js";
import type { EventType } from "./types.js";

export const deliveryQueue = "webhook.deliver";

/** What recording needs of a transaction: plain or tenant-scoped alike. */
export type OutboxTx = Pick<Prisma.TransactionClient, "$queryRaw" | "$executeRaw">;

/** An event a write causes: its data made from what the write returned (null: no event). */
interface EventOf<T> {
  tenantId: string;
  type: EventType;
  data: (written: T) => object | null;
}

/** A client that can open a transaction (the plain Prisma client). */
interface TransactionRunner {
  $transaction<T>(work: (tx: Prisma.TransactionClient) => Promise<T>): Promise<T>;
}

interface Subscriptions {
  /** Event type → the ids of the tenant's enabled endpoints that want it. */
  byType: Map<string, string[]>;
  loadedAt: number;
}

// A change announced on the pubsub reaches every instance at once; this bounds how long a lost announcement lasts.
const cacheTtlMs = 60_000;

/**
 * The outbox of event notifications. An event is written in the transaction of the change that causes it, with a
 * delivery job per endpoint that wants it, so that a crash loses neither the change's event nor its deliveries.
 * Which endpoints want which types is cached per tenant (and forgotten whenever an endpoint changes, on every
 * instance): a tenant without endpoints costs the chat path no statement at all.
 */
export class EventOutbox {
  readonly #cache = new Map<string, Subscriptions>();
  // Bumped by every forgotten tenant: a load that started before it is not kept (it may predate the change).
  #generation = 0;
  #unsubscribe: () => Promise<unknown> = async () => undefined;
  #listening: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: {
      pubsub: PubSub<Topics>;
      jobs: JobQueue;
      config: Pick<Config, "WEBHOOK_RETRY_SCHEDULE_S">;
      logger: Logger;
    },
  ) {}

  start(): void {
    const subscription = this.deps.pubsub.subscribe("webhooks:changed");
    this.#unsubscribe = () => subscription.return();
    this.#listening = (async () => {
      for await (const { tenantId } of subscription) this.#forget(tenantId);
    })().catch((err: unknown) => this.deps.logger.error({ err }, "event outbox stopped listening for endpoint changes"));
  }

  async stop(): Promise<void> {
    await this.#unsubscribe();
    await this.#listening;
  }

  /** After a tenant's endpoints changed (committed): every instance reads them again. */
  endpointsChanged(tenantId: string): void {
    this.#forget(tenantId);
    this.deps.pubsub.publish("webhooks:changed", { tenantId });
  }

  /** Attempts per delivery: the first, then one per step of the retry schedule. */
  get maxAttempts(): number {
    return this.deps.config.WEBHOOK_RETRY_SCHEDULE_S.length + 1;
  }

  /**
   * Records an event within the caller's transaction, with a delivery job for each enabled endpoint of the tenant
   * that subscribes to its type; nothing (and no statement, once the tenant's endpoints are known) when none does.
   * Returns the event's id, or null when it was not recorded.
   */
  async record(tx: OutboxTx, tenantId: string, type: EventType, data: object): Promise<string | null> {
    const endpoints = (await this.#subscriptions(tx, tenantId)).byType.get(type) ?? [];
    if (!endpoints.length) return null;
    const id = newId("wev");
    const payload = JSON.stringify({ id, type, timestamp: new Date().toISOString(), tenant_id: tenantId, data });
    const jobIds = endpoints.map(() => newId("job"));
    // One statement: the event and its jobs (the jobs table's columns as JobQueue.enqueue writes them). The join
    // re-checks each cached endpoint, so one removed or disabled meanwhile is sent nothing.
    await tx.$executeRaw`
      WITH event AS (
        INSERT INTO webhook_events (id, tenant_id, type, payload) VALUES (${id}, ${tenantId}, ${type}, ${payload}::jsonb)
        RETURNING id)
      INSERT INTO jobs (id, tenant_id, queue, payload, run_at, max_attempts, updated_at)
      SELECT wanted.job_id, ${tenantId}, ${deliveryQueue}, jsonb_build_object('eventId', event.id, 'endpointId', e.id),
             date_trunc('milliseconds', now()), ${this.maxAttempts}, now()
        FROM event
       CROSS JOIN unnest(${endpoints}::text[], ${jobIds}::text[]) AS wanted(endpoint_id, job_id)
        JOIN webhook_endpoints e ON e.id = wanted.endpoint_id
       WHERE e.tenant_id = ${tenantId} AND e.enabled AND ${type} = ANY(e.event_types)`;
    this.deps.jobs.announce(deliveryQueue);
    return id;
  }

  /**
   * Runs `write` and records the event (its data made from what `write` returned; null: no event) in one
   * transaction when an endpoint may want it; alone, without a transaction, when the tenant is known to have none
   * (the common case on the chat path). A write of raw statements alone is then given `direct`, the service's own
   * connection (`Database.statements`), where Prisma's request pipeline doubled a statement's CPU.
   */
  withEvent<T>(db: TransactionRunner, event: EventOf<T>, write: (tx: Prisma.TransactionClient) => Promise<T>): Promise<T>;
  withEvent<T>(db: TransactionRunner, event: EventOf<T>, write: (tx: Statements) => Promise<T>, direct: Statements): Promise<T>;
  withEvent<T>(
    db: TransactionRunner,
    event: EventOf<T>,
    write: (tx: Prisma.TransactionClient) => Promise<T>,
    direct?: Statements,
  ): Promise<T> {
    return this.#withEvents(db, event.tenantId, [event], write, direct);
  }

  /** `withEvent` for a write that causes several events, recorded in the order given. */
  withEvents<T>(
    db: TransactionRunner,
    tenantId: string,
    events: Array<Omit<EventOf<T>, "tenantId">>,
    write: (tx: Prisma.TransactionClient) => Promise<T>,
  ): Promise<T>;
  withEvents<T>(
    db: TransactionRunner,
    tenantId: string,
    events: Array<Omit<EventOf<T>, "tenantId">>,
    write: (tx: Statements) => Promise<T>,
    direct: Statements,
  ): Promise<T>;
  withEvents<T>(
    db: TransactionRunner,
    tenantId: string,
    events: Array<Omit<EventOf<T>, "tenantId">>,
    write: (tx: Prisma.TransactionClient) => Promise<T>,
    direct?: Statements,
  ): Promise<T> {
    return this.#withEvents(db, tenantId, events, write, direct);
  }

  async #withEvents<T>(
    db: TransactionRunner,
    tenantId: string,
    events: Array<Omit<EventOf<T>, "tenantId">>,
    write: (tx: Prisma.TransactionClient) => Promise<T>,
    direct: Statements | undefined,
  ): Promise<T> {
    const known = this.#cache.get(tenantId);
    if (known && this.#fresh(known) && !events.some((e) => known.byType.has(e.type))) {
      return write((direct ?? db) as unknown as Prisma.TransactionClient);
    }
    return db.$transaction(async (tx) => {
      const written = await write(tx);
      for (const event of events) {
        const data = event.data(written);
        if (data) await this.record(tx, tenantId, event.type, data);
      }
      return written;
    });
  }

  #fresh(subscriptions: Subscriptions): boolean {
    return Date.now() - subscriptions.loadedAt < cacheTtlMs;
  }

  #forget(tenantId: string): void {
    this.#generation++;
    this.#cache.delete(tenantId);
  }

  async #subscriptions(tx: OutboxTx, tenantId: string): Promise<Subscriptions> {
    const cached = this.#cache.get(tenantId);
    if (cached && this.#fresh(cached)) return cached;
    const generation = this.#generation;
    // Read through the caller's transaction: on the embedded database a second connection would wait for it.
    const rows = await tx.$queryRaw<Array<{ id: string; event_types: string[] }>>`
      SELECT id, event_types FROM webhook_endpoints WHERE tenant_id = ${tenantId} AND enabled`;
    const byType = new Map<string, string[]>();
    for (const row of rows) for (const type of row.event_types) byType.set(type, [...(byType.get(type) ?? []), row.id]);
    const loaded = { byType, loadedAt: Date.now() };
    if (generation === this.#generation) this.#cache.set(tenantId, loaded);
    return loaded;
  }
}
