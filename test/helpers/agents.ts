import { setTimeout as sleep } from "node:timers/promises";
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

/**
 * A subscription over graphql-sse as `token`, live once this resolves: through Redis once the server counts a
 * subscriber of `topic` (the tenant's), in-process once the stream has opened.
 */
export async function openFeed<TResult, TVariables, T>(
  app: TestApp,
  token: string,
  request: { document: TypedDocumentNode<TResult, TVariables>; variables?: TVariables; topic: string },
  pick: (data: TResult) => T,
): Promise<Feed<T>> {
  const redis = app.services.redis;
  const subscribers = async () => (redis ? Number(((await redis.pubsub("NUMSUB", request.topic)) as [string, number])[1]) : 0);
  const before = await subscribers();
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
  // An instance subscribes to a Redis topic once, for all its subscribers: a second one is live once it has opened.
  if (redis && before === 0) {
    await expect.poll(subscribers).toBeGreaterThan(before);
  } else {
    await sleep(50);
  }
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
