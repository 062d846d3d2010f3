import { randomInt } from "node:crypto";
import { once } from "node:events";
import { createServer } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RateLimits } from "../../src/http/rate-limit.js";
import { TenantDocument, UpdateTenantDocument } from "../generated.js";
import { type ApiResponse, type RequestOptions, startTestApp, type TestApp } from "../helpers/app.js";

const max = 8;
// Each test speaks from its own client IP (X-Forwarded-For through a trusted loopback proxy), so
// per-IP counters of different tests, files and runs never meet in a shared Redis.
const env = { RATE_LIMIT_MAX: String(max), RATE_LIMIT_WINDOW_S: "60", TRUST_PROXY: "loopback" };

const freshIp = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
const from = (ip: string, options: RequestOptions = {}): RequestOptions => ({
  ...options,
  headers: { ...options.headers, "x-forwarded-for": ip },
});

const tenantQuery = { query: "{ tenant { id } }" };

function rateHeaders(res: ApiResponse) {
  const value = (name: string) => {
    const header = res.headers.get(name);
    expect(header, `${name} on a ${res.status}`).toMatch(/^\d+$/);
    return Number(header);
  };
  return { limit: value("RateLimit-Limit"), remaining: value("RateLimit-Remaining"), reset: value("RateLimit-Reset") };
}

function expectRateLimited(res: ApiResponse, limit: number, windowS: number): number {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({ error: expect.any(String), code: "RATE_LIMIT" });
  expect(rateHeaders(res)).toMatchObject({ limit, remaining: 0 });
  const retryAfter = res.headers.get("Retry-After");
  expect(retryAfter).toMatch(/^\d+$/);
  const seconds = Number(retryAfter);
  expect(seconds).toBeGreaterThanOrEqual(1);
  expect(seconds).toBeLessThanOrEqual(windowS);
  expect(res.body.error.match(/(\d+) seconds?/)?.[1]).toBe(retryAfter);
  return seconds;
}

/** Before Redis is ready the limiter counts in its insurance memory; a test wants the shared counter. */
async function redisReady(app: TestApp): Promise<void> {
  const redis = app.services.redis;
  if (redis && redis.status !== "ready") await once(redis, "ready");
}

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp(env);
  await redisReady(app);
});
afterAll(() => app?.close());

describe("RateLimit headers", () => {
  it("are on every answer of /api and /graphql, with Remaining going down per request of one key", async () => {
    const { apiKey } = await app.tenant("Headers Bank");
    const answers = [
      await app.request("/api/conversations", { key: apiKey }),
      await app.request("/api/no-such-thing", { key: apiKey }),
      await app.request("/api/conversations?limit=1000", { key: apiKey }),
      await app.request("/graphql", { key: apiKey, body: tenantQuery }),
      await app.request("/graphql", { key: apiKey, body: { query: "{ tenant { nope } }" } }),
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 404, 422, 200, expect.any(Number)]);
    expect(answers[4]!.body.errors).toHaveLength(1);
    answers.forEach((res, i) => {
      const headers = rateHeaders(res);
      expect(headers).toMatchObject({ limit: max, remaining: max - 1 - i });
      expect(headers.reset).toBeGreaterThanOrEqual(1);
      expect(headers.reset).toBeLessThanOrEqual(60);
    });
  });

  it("are on 401 answers, counted per client IP", async () => {
    const ip = freshIp();
    const answers = [
      await app.request("/api/conversations", from(ip)),
      await app.request("/api/conversations", from(ip, { key: "prl_noSuchKeyAnywhere0000000000000000" })),
      await app.request("/graphql", from(ip, { key: "prl_noSuchKeyAnywhere0000000000000000", body: tenantQuery })),
      await app.request("/graphql", from(ip, { body: tenantQuery })),
    ];
    expect(answers.slice(0, 3).map((r) => r.status)).toEqual([401, 401, 401]);
    expect(answers[3]!.body.errors[0].extensions.code).toBe("AUTH_INVALID");
    answers.forEach((res, i) => {
      expect(rateHeaders(res)).toMatchObject({ limit: max, remaining: max - 1 - i });
    });
  });

  it("are on a 422 for a body that is not JSON", async () => {
    const { apiKey } = await app.tenant("Malformed Bank");
    const res = await app.request("/graphql", { key: apiKey, body: '{"query": ' });
    expect(res.status).toBe(422);
    expect(rateHeaders(res).limit).toBe(max);
  });

  it("are on the answers outside /api and /graphql too, counted per client IP: metrics, documents, 404s", async () => {
    const ip = freshIp();
    const answers = [
      await app.request("/metrics", from(ip)),
      await app.request("/openapi.json", from(ip)),
      await app.request("/docs", from(ip)),
      await app.request("/no-such-page", from(ip)),
      await app.request("/no-such-page", from(ip, { method: "POST", body: '{"broken": ' })),
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 404, 422]);
    answers.forEach((res, i) => {
      expect(rateHeaders(res)).toMatchObject({ limit: max, remaining: max - 1 - i });
    });
  });

  it("are on health probes, which are neither counted nor refused", async () => {
    const ip = freshIp();
    const fresh = await app.request("/healthz", from(ip));
    expect(fresh.status).toBe(200);
    expect(rateHeaders(fresh)).toMatchObject({ limit: max, remaining: max });

    await app.request("/openapi.json", from(ip));
    const probes = [await app.request("/healthz", from(ip)), await app.request("/readyz", from(ip))];
    expect(probes.map((r) => r.status)).toEqual([200, 200]);
    for (const res of probes) expect(rateHeaders(res)).toMatchObject({ limit: max, remaining: max - 1 });

    for (let i = 1; i < max; i++) await app.request("/openapi.json", from(ip));
    expectRateLimited(await app.request("/openapi.json", from(ip)), max, 60);
    const limited = [await app.request("/healthz", from(ip)), await app.request("/readyz", from(ip))];
    expect(limited.map((r) => r.status)).toEqual([200, 200]);
    for (const res of limited) expect(rateHeaders(res)).toMatchObject({ limit: max, remaining: 0 });
  });

  it("count a valid key on public paths per key, and let an invalid one through there", async () => {
    const { apiKey } = await app.tenant("Docs Bank");
    const ip = freshIp();
    const withKey = await app.request("/openapi.json", from(ip, { key: apiKey }));
    expect(withKey.status).toBe(200);
    expect(rateHeaders(withKey)).toMatchObject({ limit: max, remaining: max - 1 });
    const api = await app.request("/api/conversations", from(ip, { key: apiKey }));
    expect(rateHeaders(api).remaining).toBe(max - 2);

    const badKey = await app.request("/openapi.json", from(ip, { key: "prl_noSuchKeyAnywhere0000000000000000" }));
    expect(badKey.status).toBe(200);
    expect(rateHeaders(badKey).remaining).toBe(max - 1);
  });
});

describe("over the limit", () => {
  it("answers 429 RATE_LIMIT with Retry-After, the same seconds in the message, and lets the caller in after the window", async () => {
    const windowS = 2;
    const limit = 3;
    const owner = await app.tenant("Burst Bank");
    const update = await app.graphql(UpdateTenantDocument, { rateLimitMax: limit, rateLimitWindowS: windowS }, owner.apiKey);
    expect(update.data?.updateTenant.rateLimit).toEqual({ max: limit, windowS });
    const key = await app.keyFor(owner.tenantId, "viewer");

    // Sent at once so that they all fall into one window however slow the machine is.
    const burst = await Promise.all(Array.from({ length: limit + 1 }, () => app.request("/api/conversations", { key })));
    expect(burst.map((r) => r.status).sort()).toEqual([200, 200, 200, 429]);
    const retryAfter = expectRateLimited(burst.find((r) => r.status === 429)!, limit, windowS);

    await sleep(retryAfter * 1000 + 100);
    const after = await app.request("/api/conversations", { key });
    expect(after.status).toBe(200);
    expect(rateHeaders(after)).toMatchObject({ limit, remaining: limit - 1 });
  });
});

describe("counting", () => {
  it("keeps a separate counter for each API key of a tenant", async () => {
    const { tenantId, apiKey } = await app.tenant("Two Keys Bank");
    const second = await app.keyFor(tenantId, "viewer");
    for (let i = 0; i < max; i++) {
      const res = await app.request("/api/conversations", { key: apiKey });
      expect(res.status).toBe(200);
      expect(rateHeaders(res).remaining).toBe(max - 1 - i);
    }
    expectRateLimited(await app.request("/api/conversations", { key: apiKey }), max, 60);
    expectRateLimited(await app.request("/graphql", { key: apiKey, body: tenantQuery }), max, 60);

    const other = await app.request("/api/conversations", { key: second });
    expect(other.status).toBe(200);
    expect(rateHeaders(other)).toMatchObject({ limit: max, remaining: max - 1 });
  });

  it("counts unauthenticated and invalid-key requests per client IP: 401 until the IP is limited, then 429", async () => {
    const ip = freshIp();
    const badKey = "prl_noSuchKeyAnywhere0000000000000000";
    for (let i = 0; i < max; i++) {
      const res = await app.request("/api/conversations", from(ip, { key: i % 2 ? badKey : null }));
      expect(res.status).toBe(401);
      expect(res.body.code).toBe("AUTH_INVALID");
      expect(rateHeaders(res).remaining).toBe(max - 1 - i);
    }
    expectRateLimited(await app.request("/api/conversations", from(ip, { key: badKey })), max, 60);
    expectRateLimited(await app.request("/api/conversations", from(ip)), max, 60);
    expectRateLimited(await app.request("/graphql", from(ip, { key: badKey, body: tenantQuery })), max, 60);

    const elsewhere = await app.request("/api/conversations", from(freshIp(), { key: badKey }));
    expect(elsewhere.status).toBe(401);
    expect(rateHeaders(elsewhere).remaining).toBe(max - 1);

    const { apiKey } = await app.tenant("Same IP Bank");
    const valid = await app.request("/api/conversations", from(ip, { key: apiKey }));
    expect(valid.status).toBe(200);
    expect(rateHeaders(valid).remaining).toBe(max - 1);
  });

  it("applies a tenant's own limit to that tenant's keys only", async () => {
    const limited = await app.tenant("Strict Bank");
    const other = await app.tenant("Default Bank");
    const update = await app.graphql(UpdateTenantDocument, { rateLimitMax: 3 }, limited.apiKey);
    expect(update.data?.updateTenant.rateLimit).toEqual({ max: 3, windowS: 60 });
    expect((await app.graphql(TenantDocument, {}, other.apiKey)).data?.tenant.rateLimit).toEqual({ max, windowS: 60 });

    const key = await app.keyFor(limited.tenantId, "viewer");
    for (let i = 0; i < 3; i++) {
      const res = await app.request("/api/conversations", { key });
      expect(res.status).toBe(200);
      expect(rateHeaders(res)).toMatchObject({ limit: 3, remaining: 2 - i });
    }
    expectRateLimited(await app.request("/api/conversations", { key }), 3, 60);

    for (let i = 0; i < 4; i++) {
      const res = await app.request("/api/conversations", { key: other.apiKey });
      expect(res.status).toBe(200);
      expect(rateHeaders(res).limit).toBe(max);
    }
  });
});

describe("when Redis is unreachable", () => {
  it("counts in the insurance memory limiter instead of failing", async () => {
    const closed = createServer().listen(0, "127.0.0.1");
    await once(closed, "listening");
    const port = (closed.address() as { port: number }).port;
    await new Promise((resolve) => closed.close(resolve));

    // The options of the service's own client (src/services.ts).
    const redis = new Redis(port, "127.0.0.1", { maxRetriesPerRequest: 3, enableOfflineQueue: false });
    // Connection refusals are the point of this test, not something to print.
    redis.on("error", () => undefined);
    try {
      const limits = new RateLimits({ redis });
      const limit = { max: 3, windowS: 60 };
      const decisions = [];
      for (let i = 0; i < 4; i++) decisions.push(await limits.consume("key:insured", limit));
      expect(decisions.map((d) => [d.allowed, d.remaining])).toEqual([
        [true, 2],
        [true, 1],
        [true, 0],
        [false, 0],
      ]);
      expect(decisions[3]!.resetS).toBeGreaterThanOrEqual(1);
    } finally {
      redis.disconnect();
    }
  });
});

describe.runIf(process.env.REDIS_URL)("two instances on one Redis", () => {
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    a = await startTestApp(env);
    // An in-memory PGlite cannot be opened twice: without DATABASE_URL, b has a database of its own.
    b = await startTestApp(env, process.env.DATABASE_URL ? { database: a.database } : {});
    await Promise.all([redisReady(a), redisReady(b)]);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it.runIf(process.env.DATABASE_URL)("share one counter per API key", async () => {
    const { apiKey } = await a.tenant("Shared Bank");
    for (let i = 0; i < max; i++) {
      const res = await (i % 2 ? b : a).request("/api/conversations", { key: apiKey });
      expect(res.status).toBe(200);
      expect(rateHeaders(res).remaining).toBe(max - 1 - i);
    }
    expectRateLimited(await a.request("/api/conversations", { key: apiKey }), max, 60);
    expectRateLimited(await b.request("/api/conversations", { key: apiKey }), max, 60);
  });

  it("share one counter per client IP", async () => {
    const ip = freshIp();
    for (let i = 0; i < max; i++) {
      const res = await (i % 2 ? b : a).request("/api/conversations", from(ip));
      expect(res.status).toBe(401);
      expect(rateHeaders(res).remaining).toBe(max - 1 - i);
    }
    expectRateLimited(await b.request("/api/conversations", from(ip)), max, 60);
    expectRateLimited(await a.request("/api/conversations", from(ip)), max, 60);
  });

  it("keep answering from memory when the connection to Redis is gone", async () => {
    const { apiKey } = await b.tenant("Outage Bank");
    b.services.redis?.disconnect();
    for (let i = 0; i < 3; i++) {
      const res = await b.request("/api/conversations", { key: apiKey });
      expect(res.status).toBe(200);
      expect(rateHeaders(res)).toMatchObject({ limit: max, remaining: max - 1 - i });
    }
  });
});
