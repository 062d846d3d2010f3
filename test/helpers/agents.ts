import type { TypedDocumentNode } from "@graphql-typed-document-node/core";
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
import { redisSubscribed } from "./realtime.js";

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

export interface Feed<T> {
  events: T[];
  /** Resolves with the first event (received so far or later) that `matches`. */
  next(matches: (event: T) => boolean): Promise<T>;
  dispose(): void;
}

export type InboxFeed = Feed<InboxEvent>;

const inProcessSubscriptions = new WeakMap<TestApp, Map<string, number>>();

/**
 * How many subscriptions of each topic (`<topic>:<id>`) an instance's bus has listened for: the bus adds a
 * subscription's listener on its first pull, which is where it is counted.
 */
function inProcessSubscriptionCounts(app: TestApp): Map<string, number> {
  const known = inProcessSubscriptions.get(app);
  if (known) return known;
  const counts = new Map<string, number>();
  inProcessSubscriptions.set(app, counts);
  const { pubsub } = app.services.realtime;
  const subscribe = pubsub.subscribe.bind(pubsub) as (...args: unknown[]) => AsyncIterableIterator<unknown>;
  pubsub.subscribe = ((...args: unknown[]) => {
    const subscription = subscribe(...args);
    const topic = args.length > 1 ? `${args[0]}:${args[1]}` : String(args[0]);
    let pulled = false;
    // The same iterator, counted on its first pull; callers use it as an iterable and as an iterator alike.
    const counted: AsyncIterableIterator<unknown> = {
      next() {
        if (!pulled) counts.set(topic, (counts.get(topic) ?? 0) + 1);
        pulled = true;
        return subscription.next();
      },
      return: (value?: unknown) => subscription.return?.(value) ?? Promise.resolve({ done: true as const, value }),
      [Symbol.asyncIterator]() {
        return counted;
      },
    };
    return counted;
  }) as typeof pubsub.subscribe;
  return counts;
}

/**
 * A subscription over graphql-sse as `token`, live once this resolves: once the instance's bus listens for it, and
 * with Redis once the instance has subscribed to the topic there (once, for all its subscribers).
 */
export async function openFeed<TResult, TVariables, T>(
  app: TestApp,
  token: string,
  request: { document: TypedDocumentNode<TResult, TVariables>; variables?: TVariables; topic: string },
  pick: (data: TResult) => T,
): Promise<Feed<T>> {
  const listening = inProcessSubscriptionCounts(app);
  const before = listening.get(request.topic) ?? 0;
  const client = createClient({ url: `${app.url}/graphql`, headers: { authorization: `Bearer ${token}` }, retryAttempts: 0 });
  const events: T[] = [];
  let connected!: () => void;
  const opened = new Promise<void>((resolve) => {
    connected = resolve;
  });
  const done = (async () => {
    for await (const result of client.iterate<TResult>(
      { query: print(request.document), variables: (request.variables ?? {}) as Record<string, unknown> },
      { connected: () => connected() },
    )) {
      if (result.data) events.push(pick(result.data as TResult));
    }
  })();
  done.catch(() => undefined);
  await opened;
  await expect.poll(() => listening.get(request.topic) ?? 0).toBeGreaterThan(before);
  await redisSubscribed(app, request.topic);
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

/** An agent's inbox subscription (see openFeed). */
export function openInbox(app: TestApp, token: string, tenantId: string): Promise<InboxFeed> {
  return openFeed(app, token, { document: InboxDocument, topic: `inbox:escalation:${tenantId}` }, (data) => data.inbox);
}
