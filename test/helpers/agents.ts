import { setTimeout as sleep } from "node:timers/promises";
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

/**
 * An agent's inbox subscription over graphql-sse, live once this resolves: through Redis once the server counts
 * the subscriber, in-process once the stream has opened.
 */
export async function openInbox(app: TestApp, token: string, tenantId: string): Promise<InboxFeed> {
  const redis = app.services.redis;
  const subscribers = async () =>
    redis ? Number(((await redis.pubsub("NUMSUB", `inbox:escalation:${tenantId}`)) as [string, number])[1]) : 0;
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
  if (redis) {
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
