import { randomInt } from "node:crypto";
import { print } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LoginDocument } from "../generated.js";
import { addAgent, agentPassword } from "../helpers/agents.js";
import { startTestApp, type TestApp } from "../helpers/app.js";

// Issue 10: credential guessing contained. Runs in memory, and in Redis when REDIS_URL is set. Each test speaks
// from addresses of its own (X-Forwarded-For through a trusted loopback proxy), so counters never meet in Redis.

const free = 3;
let app: TestApp;
let owner: string;

beforeAll(async () => {
  app = await startTestApp({
    TRUST_PROXY: "loopback",
    LOGIN_FREE_ATTEMPTS_PER_ACCOUNT: String(free),
    LOGIN_FREE_ATTEMPTS_PER_ADDRESS: "8",
    RATE_LIMIT_MAX: "1000",
  });
  owner = (await app.tenant("Throttle Bank")).apiKey;
});
afterAll(() => app?.close());

const freshIp = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

async function login(email: string, password: string, ip: string, key?: string) {
  const res = await app.request("/graphql", {
    key,
    headers: { "x-forwarded-for": ip },
    body: { query: print(LoginDocument), variables: { email, password } },
  });
  return { status: res.status, retryAfter: res.headers.get("retry-after"), body: res.body };
}

/** Wrong passwords until one is refused with 429; the delays double from 1 s, so it comes within a few tries. */
async function guessUntilRefused(email: string, ip: () => string, key?: string) {
  for (let attempt = 1; attempt <= free + 6; attempt++) {
    const res = await login(email, "not the password", ip(), key);
    if (res.status === 429) return { attempt, res };
    expect(res.body.errors[0].extensions.code).toBe("AUTH_INVALID");
  }
  throw new Error("never refused");
}

function expectThrottled(res: Awaited<ReturnType<typeof login>>) {
  expect(res.status).toBe(429);
  expect(Number(res.retryAfter)).toBeGreaterThanOrEqual(1);
  expect(res.body.errors[0]).toMatchObject({
    message: expect.stringMatching(/retry in \d+ seconds/),
    extensions: { code: "RATE_LIMIT" },
  });
}

describe("login throttling", () => {
  it("holds up an account after its free attempts, from any address, with 429 and Retry-After", async () => {
    const agent = await addAgent(app, owner, { loginFrom: freshIp() });
    const { attempt, res } = await guessUntilRefused(agent.email, freshIp);
    expect(attempt).toBeGreaterThan(free);
    expectThrottled(res);
    // The right password waits too: the guesser cannot tell it from a wrong one while held up.
    expectThrottled(await login(agent.email, agentPassword, freshIp()));
  });

  it("holds up an address trying many accounts, whatever API key it sends", async () => {
    const ip = freshIp();
    const accounts = Array.from({ length: 20 }, (_, i) => `nobody${i}.${Date.now()}@bank.example`);
    let refused: Awaited<ReturnType<typeof login>> | undefined;
    for (const email of accounts) {
      const res = await login(email, "guess", ip, owner);
      if (res.status === 429) {
        refused = res;
        break;
      }
    }
    expect(refused).toBeDefined();
    expectThrottled(refused!);
  });

  it("clears an account's count on a successful login", async () => {
    const agent = await addAgent(app, owner, { loginFrom: freshIp() });
    for (let i = 0; i < free - 1; i++) {
      expect((await login(agent.email, "not the password", freshIp())).status).toBe(200);
    }
    expect((await login(agent.email, agentPassword, freshIp())).body.data.login.token).toMatch(/^prs_/);
    // A full set of free attempts again before the account is held up.
    for (let i = 0; i < free - 1; i++) {
      expect((await login(agent.email, "not the password", freshIp())).body.errors[0].extensions.code).toBe("AUTH_INVALID");
    }
  });
});

describe("tenant rate limits", () => {
  it("are capped by the operator's RATE_LIMIT_TENANT_MAX, scaled to the tenant's window", async () => {
    const capped = await startTestApp({ RATE_LIMIT_TENANT_MAX: "300", RATE_LIMIT_WINDOW_S: "60" });
    try {
      const tenant = await capped.tenant("Greedy Bank");
      const set = (rateLimitMax: number, rateLimitWindowS: number) =>
        capped.request("/graphql", {
          key: tenant.apiKey,
          body: {
            query:
              "mutation($m: Int, $w: Int) { updateTenant(rateLimitMax: $m, rateLimitWindowS: $w) { rateLimit { max windowS } } }",
            variables: { m: rateLimitMax, w: rateLimitWindowS },
          },
        });
      expect((await set(100_000, 60)).body.data.updateTenant.rateLimit).toEqual({ max: 300, windowS: 60 });
      expect((await set(100_000, 1)).body.data.updateTenant.rateLimit).toEqual({ max: 5, windowS: 1 });
      expect((await set(200, 60)).body.data.updateTenant.rateLimit).toEqual({ max: 200, windowS: 60 });
      const res = await capped.request("/api/conversations", { key: tenant.apiKey });
      expect(res.headers.get("ratelimit-limit")).toBe("200");
    } finally {
      await capped.close();
    }
  }, 120_000);
});
