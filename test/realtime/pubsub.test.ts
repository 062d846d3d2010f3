import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { connect, createServer, type Server, type Socket } from "node:net";
import { Redis } from "ioredis";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { createRealtimeBus, type RealtimeBus } from "../../src/realtime/pubsub.js";

const redisUrl = process.env.REDIS_URL;

let buses: RealtimeBus[] = [];
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  await Promise.all(buses.map((bus) => bus.close()));
  buses = [];
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A bus whose log lines are kept for the test to read. */
function bus(url: string | undefined, log: string[] = [], prefix?: string): RealtimeBus {
  const created = createRealtimeBus(url, pino({ level: "warn" }, { write: (line: string) => log.push(line) }), prefix);
  buses.push(created);
  return created;
}

function firstOf<T>(iterable: AsyncIterable<T>): { next: Promise<IteratorResult<T>>; stop(): void } {
  const iterator = iterable[Symbol.asyncIterator]();
  // The subscription is made on the first pull, so pull before anything is published.
  return { next: iterator.next(), stop: () => void iterator.return?.() };
}

async function closedPort(): Promise<number> {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Fails the test on an unhandled rejection that Node would otherwise end the process for. */
function watchUnhandledRejections(): unknown[] {
  const seen: unknown[] = [];
  const record = (reason: unknown) => seen.push(reason);
  process.on("unhandledRejection", record);
  cleanups.push(() => process.off("unhandledRejection", record));
  return seen;
}

describe("in-process bus", () => {
  it("delivers a message to every subscriber of its topic", async () => {
    const { pubsub } = bus(undefined);
    const first = firstOf(pubsub.subscribe("job:enqueued"));
    const second = firstOf(pubsub.subscribe("job:enqueued"));
    const elsewhere = firstOf(pubsub.subscribe("conversation", "conv_a"));
    const here = firstOf(pubsub.subscribe("conversation", "conv_b"));

    pubsub.publish("job:enqueued", { queue: "crawl" });
    pubsub.publish("conversation", "conv_b", { text: "hello" });

    expect(await first.next).toEqual({ done: false, value: { queue: "crawl" } });
    expect(await second.next).toEqual({ done: false, value: { queue: "crawl" } });
    expect(await here.next).toEqual({ done: false, value: { text: "hello" } });
    // conv_a's subscriber heard nothing of conv_b: the first message it gets is one published for it afterwards.
    pubsub.publish("conversation", "conv_a", { text: "for a" });
    expect(await elsewhere.next).toEqual({ done: false, value: { text: "for a" } });
    for (const s of [first, second, elsewhere, here]) s.stop();
  });
});

describe("Redis bus when Redis is unreachable", () => {
  it("logs a failed publish instead of leaving its rejection unhandled", async () => {
    const unhandled = watchUnhandledRejections();
    const log: string[] = [];
    const { pubsub } = bus(`redis://127.0.0.1:${await closedPort()}`, log);

    pubsub.publish("job:enqueued", { queue: "crawl" });
    // maxRetriesPerRequest 3: the publish gives up after the third failed reconnection.
    await expect.poll(() => log.some((line) => line.includes("realtime Redis command failed")), { timeout: 5_000 }).toBe(true);
    expect(unhandled).toEqual([]);
  });
});

async function subscribed(admin: Redis, channel: string): Promise<void> {
  await expect
    .poll(async () => Number(((await admin.pubsub("NUMSUB", channel)) as [string, number])[1]), { timeout: 5_000 })
    .toBeGreaterThan(0);
}

describe.runIf(redisUrl)("Redis bus", () => {
  const admin = () => {
    const client = new Redis(redisUrl!);
    cleanups.push(() => client.disconnect());
    return client;
  };

  it("carries a message published on one bus to a subscriber on another", async () => {
    const id = randomUUID();
    const publisher = bus(redisUrl).pubsub;
    const subscriber = bus(redisUrl).pubsub;
    const received = firstOf(subscriber.subscribe("test", id));
    const local = firstOf(publisher.subscribe("test", id));
    await subscribed(admin(), `test:${id}`);

    publisher.publish("test", id, { hello: "from instance A", n: 1 });

    expect(await received.next).toEqual({ done: false, value: { hello: "from instance A", n: 1 } });
    expect(await local.next).toEqual({ done: false, value: { hello: "from instance A", n: 1 } });
    received.stop();
    local.stop();
  });

  it("names its channels with the deployment's key prefix: deployments sharing a Redis do not hear each other", async () => {
    const id = randomUUID();
    const [ours, theirs] = [`parley-a:${randomUUID()}:`, `parley-b:${randomUUID()}:`];
    const sameDeployment = firstOf(bus(redisUrl, [], ours).pubsub.subscribe("test", id));
    const otherDeployment = firstOf(bus(redisUrl, [], theirs).pubsub.subscribe("test", id));
    const redis = admin();
    await subscribed(redis, `${ours}test:${id}`);
    await subscribed(redis, `${theirs}test:${id}`);

    bus(redisUrl, [], ours).pubsub.publish("test", id, { from: "ours" });
    expect(await sameDeployment.next).toEqual({ done: false, value: { from: "ours" } });
    // The other deployment heard nothing of it: the first message it gets is its own deployment's.
    bus(redisUrl, [], theirs).pubsub.publish("test", id, { from: "theirs" });
    expect(await otherDeployment.next).toEqual({ done: false, value: { from: "theirs" } });
    sameDeployment.stop();
    otherDeployment.stop();
  });

  it("keeps a subscription made while Redis was unreachable and delivers once it is back", async () => {
    const unhandled = watchUnhandledRejections();
    const target = new URL(redisUrl!);
    const port = await closedPort();
    const log: string[] = [];
    const subscriber = bus(`redis://127.0.0.1:${port}`, log).pubsub;
    const id = randomUUID();
    const received = firstOf(subscriber.subscribe("test", id));

    // Until a bounded command (a publish: three reconnection attempts) has failed on the same bus, which a
    // SUBSCRIBE of the same bounds would have done too.
    subscriber.publish("test", randomUUID(), { lost: true });
    await expect.poll(() => log.some((line) => line.includes("realtime Redis command failed"))).toBe(true);
    const sockets = new Set<Socket>();
    const proxy: Server = createServer((client) => {
      const upstream = connect(Number(target.port || 6379), target.hostname);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on("error", () => socket.destroy());
      }
      client.pipe(upstream).pipe(client);
    }).listen(port, "127.0.0.1");
    cleanups.push(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => proxy.close(resolve));
    });
    await once(proxy, "listening");

    const redis = admin();
    await subscribed(redis, `test:${id}`);
    bus(redisUrl).pubsub.publish("test", id, { back: true });
    expect(await received.next).toEqual({ done: false, value: { back: true } });
    expect(unhandled).toEqual([]);
    received.stop();
  });
});
