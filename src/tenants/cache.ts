import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { Database } from "../db/client.js";
import type { Prisma } from "../db/generated/prisma/client.js";
import type { RealtimeBus } from "../realtime/pubsub.js";

/** What every request of a tenant reads and an administrator rarely changes. */
export interface CachedTenant {
  id: string;
  name: string;
  settings: Prisma.JsonValue;
  intentsVersion: number;
}

/** An API key as authentication needs it. */
export interface CachedApiKey {
  id: string;
  tenantId: string;
  role: string;
  prefix: string;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
}

interface Entry<T> {
  value: T;
  expires: number;
}

// The bound on staleness should an announcement be lost (a Redis outage): announcements do the invalidating.
const ttlMs = 30_000;

/**
 * Tenants (name, settings, intents version), API keys and the channels webhooks are routed to, cached in this
 * instance so that a request does not read them from the database each time. Whatever changes them calls
 * `changed(tenantId)` once its transaction has committed: this instance forgets the tenant, its keys and every
 * channel at once, and the others when the announcement reaches them through the pubsub (in-process, or Redis
 * across instances). A read that started before a change and
 * ends after its announcement is not kept: it may have seen the old rows.
 */
export class TenantCache {
  private readonly tenants = new Map<string, Entry<CachedTenant | null>>();
  private readonly keys = new Map<string, Entry<CachedApiKey | null>>();
  // Looked up across tenants (a webhook names an account, not a tenant): any tenant's change forgets them all.
  private readonly channels = new Map<string, Entry<unknown>>();
  // Bumped by every change: a read keeps its result only if no change was announced while it ran.
  private generation = 0;
  // Its own announcements come back through Redis: they were applied when made, and applying them again on arrival
  // would forget what was read since.
  private readonly origin = randomUUID();
  private unsubscribe: () => unknown = () => undefined;
  private listening: Promise<void> = Promise.resolve();

  constructor(private readonly services: { db: Database; realtime: RealtimeBus; logger: Logger }) {}

  /** Listens for other instances' changes until `stop`. */
  start(): void {
    const subscription = this.services.realtime.pubsub.subscribe("tenant:changed");
    this.unsubscribe = () => subscription.return();
    this.listening = (async () => {
      for await (const { tenantId, origin } of subscription) if (origin !== this.origin) this.forget(tenantId);
    })().catch((err: unknown) => this.services.logger.error({ err }, "tenant cache stopped listening for changes"));
  }

  async stop(): Promise<void> {
    await this.unsubscribe();
    await this.listening;
  }

  tenant(tenantId: string): Promise<CachedTenant | null> {
    return this.read(this.tenants, tenantId, () =>
      this.services.db.prisma.tenant.findUnique({
        where: { id: tenantId },
        select: { id: true, name: true, settings: true, intentsVersion: true },
      }),
    );
  }

  /** The key whose SHA-256 is `hash`, revoked or not; null when there is none. */
  apiKey(hash: string): Promise<CachedApiKey | null> {
    return this.read(this.keys, hash, () =>
      this.services.db.prisma.apiKey.findUnique({
        where: { hash },
        select: { id: true, tenantId: true, role: true, prefix: true, revokedAt: true, lastUsedAt: true },
      }),
    );
  }

  /**
   * The channel rows a webhook look-up found (by token, by provider account), kept while no tenant changes: an
   * acknowledgement reads them on every delivery. Nothing is kept for a look-up that finds none (null).
   */
  channelRows<T>(lookup: string, load: () => Promise<T | null>): Promise<T | null> {
    return this.read(this.channels as Map<string, Entry<T | null>>, lookup, load);
  }

  /** After a committed change of the tenant, its settings, its keys or its channels: every instance forgets them. */
  changed(tenantId: string): void {
    this.forget(tenantId);
    this.services.realtime.pubsub.publish("tenant:changed", { tenantId, origin: this.origin });
  }

  private forget(tenantId: string): void {
    this.generation++;
    this.tenants.delete(tenantId);
    this.channels.clear();
    for (const [hash, entry] of this.keys) if (entry.value?.tenantId === tenantId) this.keys.delete(hash);
  }

  private async read<T>(cache: Map<string, Entry<T>>, id: string, load: () => Promise<T>): Promise<T> {
    const now = Date.now();
    const cached = cache.get(id);
    if (cached && cached.expires > now) return cached.value;
    const generation = this.generation;
    const value = await load();
    // An unknown key is not kept: it may be about to be created, and guessing must not fill the cache.
    if (generation === this.generation && value !== null) cache.set(id, { value, expires: now + ttlMs });
    return value;
  }
}
