import { print } from "graphql";
import { createClient } from "graphql-sse";
import { expect, vi } from "vitest";
import {
  type Availability,
  CreateAgentForTestDocument,
  InboxDocument,
  type InboxSubscription,
  LoginDocument,
  type Role,
} from "../generated.js";
import type { TestApp } from "./app.js";

export const agentPassword = "correct horse battery staple";

let counter = 0;

/**
 * A dashboard user made by `key` (an owner's by default) and logged in: their id and session token. `loginFrom`
 * is the client address the login claims (X-Forwarded-For, for an app that trusts a loopback proxy), for tests
 * whose login throttle must not meet 127.0.0.1's attempts from other files in a shared Redis.
 */
export async function addAgent(
  app: TestApp,
  key: string,
  {
    loginFrom,
    ...input
  }: {
    name?: string;
    role?: Role;
    availability?: Availability;
    maxConcurrent?: number;
    teamIds?: string[];
    loginFrom?: string;
  } = {},
): Promise<{ id: string; email: string; token: string }> {
  const email = `agent${++counter}.${Date.now()}@bank.example`;
  const created = await app.graphql(
    CreateAgentForTestDocument,
    { name: input.name ?? `Agent ${counter}`, email, password: agentPassword, ...input },
    key,
  );
  expect(created.errors, JSON.stringify(created.errors)).toBeUndefined();
  const login = await app.request("/graphql", {
    key: null,
    headers: loginFrom ? { "x-forwarded-for": loginFrom } : {},
    body: { query: print(LoginDocument), variables: { email, password: agentPassword } },
  });
  expect(login.body.errors, JSON.stringify(login.body.errors)).toBeUndefined();
  return { id: created.data!.createAgent.id, email, token: login.body.data.login.token };
}

type InboxEvent = InboxSubscription["inbox"];

export interface InboxFeed {
  events: InboxEvent[];
  /** Resolves with the first event (received so far or later) that `matches`. */
  next(matches: (event: InboxEvent) => boolean): Promise<InboxEvent>;
  dispose(): void;
}

const inProcessInboxes = new WeakMap<TestApp, Map<string, number>>();

/**
 * How many inbox subscriptions of each tenant an instance's in-process bus has listened for: the bus adds a
 * subscription's listener on its first pull, which is where it is counted.
 */
function inProcessInboxCounts(app: TestApp): Map<string, number> {
  const known = inProcessInboxes.get(app);
  if (known) return known;
  const counts = new Map<string, number>();
  inProcessInboxes.set(app, counts);
  const { pubsub } = app.services.realtime;
  const subscribe = pubsub.subscribe.bind(pubsub) as (...args: unknown[]) => AsyncIterable<unknown>;
  pubsub.subscribe = ((...args: unknown[]) => {
    const iterable = subscribe(...args);
    if (args[0] !== "inbox:escalation") return iterable;
    const tenantId = args[1] as string;
    return {
      [Symbol.asyncIterator]() {
        const iterator = iterable[Symbol.asyncIterator]();
        let pulled = false;
        return {
          next() {
            if (!pulled) counts.set(tenantId, (counts.get(tenantId) ?? 0) + 1);
            pulled = true;
            return iterator.next();
          },
          return: (value?: unknown) => iterator.return?.(value) ?? Promise.resolve({ done: true as const, value }),
        };
      },
    };
  }) as typeof pubsub.subscribe;
  return counts;
}

/**
 * An agent's inbox subscription over graphql-sse, live once this resolves: through Redis once the server counts
 * the subscriber, in-process once the instance's bus listens for it.
 */
export async function openInbox(app: TestApp, token: string, tenantId: string): Promise<InboxFeed> {
  const redis = app.services.redis;
  const inProcess = redis ? null : inProcessInboxCounts(app);
  const subscribers = async () =>
    redis
      ? Number(((await redis.pubsub("NUMSUB", `inbox:escalation:${tenantId}`)) as [string, number])[1])
      : (inProcess?.get(tenantId) ?? 0);
  const before = await subscribers();
  const client = createClient({ url: `${app.url}/graphql`, headers: { authorization: `Bearer ${token}` }, retryAttempts: 0 });
  const events: InboxEvent[] = [];
  let connected!: () => void;
  const opened = new Promise<void>((resolve) => {
    connected = resolve;
  });
  const done = (async () => {
    for await (const result of client.iterate<InboxSubscription>(
      { query: print(InboxDocument) },
      { connected: () => connected() },
    )) {
      if (result.data) events.push(result.data.inbox);
    }
  })();
  done.catch(() => undefined);
  await opened;
  await expect.poll(subscribers).toBeGreaterThan(before);
  return {
    events,
    next: (matches) =>
      vi.waitFor(
        () => {
          const found = events.find(matches);
          expect(found).toBeDefined();
          return found!;
        },
        { timeout: 10_000, interval: 25 },
      ),
    dispose: () => client.dispose(),
  };
}
