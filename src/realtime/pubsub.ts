import { createRedisEventTarget } from "@graphql-yoga/redis-event-target";
import { createPubSub, type PubSub } from "graphql-yoga";
import { Redis } from "ioredis";
import pino, { type Logger } from "pino";
import type { ConversationActivity, InboxPayload } from "../escalations/inbox.js";

/**
 * Topics carried between instances. Payloads are plain JSON so they cross Redis unchanged.
 * Later issues add their topics here.
 */
export type Topics = {
  "job:enqueued": [payload: { queue: string }];
  /** A change to a tenant's chunks, for instances keeping an in-process vector index (src/knowledge/vector-index-memory.ts). */
  "vectors:changed": [payload: { tenantId: string; added: string[]; removed: string[]; version: number; origin: string }];
  /** An escalation appeared or changed (src/escalations/inbox.ts), by tenant: agents' inbox subscriptions. */
  "inbox:escalation": [tenantId: string, payload: InboxPayload];
  /** A customer wrote in a conversation the humans have, by tenant. */
  "inbox:message": [tenantId: string, payload: { conversationId: string; messageId: string }];
  /** A tenant's event notification endpoints changed (src/events/outbox.ts): instances forget which types it wants. */
  "webhooks:changed": [payload: { tenantId: string }];
  /** A tenant's settings, intents or API keys changed (src/tenants/cache.ts): instances forget what they cached of it. */
  "tenant:changed": [payload: { tenantId: string; origin: string }];
  /** A message was stored in one of the tenant's conversations (customer, AI, agent or private note): the dashboard. */
  "conversation:activity": [tenantId: string, payload: ConversationActivity];
  /** A knowledge source's status or crawl progress changed (src/knowledge/sync.ts), by tenant: the dashboard. */
  "knowledge:source": [tenantId: string, payload: { sourceId: string }];
  /** A tenant's chunks changed (src/knowledge/ingest.ts): instances retrain its FAQ entry classifier. */
  "knowledge:changed": [payload: { tenantId: string }];
  [topic: string]: [payload: unknown] | [id: string, payload: unknown];
};

type RedisEventTarget = ReturnType<typeof createRedisEventTarget>;

export interface RealtimeBus {
  pubsub: PubSub<Topics>;
  close(): Promise<void>;
}

const firedCommands = new Set<PropertyKey>(["publish", "subscribe", "unsubscribe"]);

/**
 * The event target sends PUBLISH, SUBSCRIBE and UNSUBSCRIBE without awaiting them: during a Redis
 * outage their rejections would go unhandled and end the process.
 */
function loggingFailures(client: Redis, logger: Logger): Redis {
  return new Proxy(client, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (!firedCommands.has(property) || typeof value !== "function") return value;
      return (...args: unknown[]) =>
        (value.apply(target, args) as Promise<unknown>).catch((err: unknown) =>
          logger.warn({ err, command: property }, "realtime Redis command failed"),
        );
    },
  });
}

/**
 * Redis channels are one namespace for every client of a server, whatever its database: the deployment's prefix
 * keeps another deployment's announcements (a staging instance's, another test file's) from reaching this one.
 */
function prefixed(target: RedisEventTarget, prefix: string): RedisEventTarget {
  return {
    addEventListener: (topic, listener) => target.addEventListener(prefix + topic, listener),
    removeEventListener: (topic, listener) => target.removeEventListener(prefix + topic, listener),
    dispatchEvent: (event) => target.dispatchEvent(new CustomEvent(prefix + event.type, { detail: event.detail })),
  };
}

/**
 * In-process by default; through Redis (one publisher and one subscriber connection) with REDIS_URL, on channels
 * named with the deployment's key prefix.
 */
export function createRealtimeBus(redisUrl: string | undefined, logger: Logger = pino(), prefix = ""): RealtimeBus {
  if (!redisUrl) return { pubsub: createPubSub<Topics>(), close: async () => undefined };
  const publishClient = new Redis(redisUrl, { maxRetriesPerRequest: 3 });
  // A SUBSCRIBE waits out an outage rather than failing: the event target never sends it again, so
  // a failed one would leave its topic deaf for the life of the process. No ready check either: ioredis
  // writes a SUBSCRIBE made while the connection is still being set up (Redis allows it during loading),
  // the connection is then in subscriber mode, the check's INFO is refused, and ioredis drops the queued
  // SUBSCRIBEs with the failed check. Seen under load: a bus that never heard its topics again.
  const subscribeClient = new Redis(redisUrl, { maxRetriesPerRequest: null, enableReadyCheck: false });
  for (const client of [publishClient, subscribeClient]) {
    client.on("error", (err) => logger.warn({ err }, "realtime Redis connection failed"));
  }
  const eventTarget = prefixed(
    createRedisEventTarget({
      publishClient: loggingFailures(publishClient, logger),
      subscribeClient: loggingFailures(subscribeClient, logger),
    }),
    prefix,
  );
  return {
    pubsub: createPubSub<Topics>({ eventTarget }),
    async close() {
      publishClient.disconnect();
      subscribeClient.disconnect();
    },
  };
}
