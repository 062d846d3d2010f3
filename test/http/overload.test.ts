import { connect } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { captureLogs } from "../helpers/logs.js";
import { freePort } from "../helpers/process.js";

const apps: TestApp[] = [];
afterAll(() => Promise.all(apps.map((app) => app.close())));

// PGlite is one connection with no pool: a request waits its turn rather than running out of connections.
describe.runIf(process.env.DATABASE_URL)("when no database connection is free in time", () => {
  it("answers 503 with Retry-After and the spec's error body, then serves again once a connection is free", async () => {
    // The timeout bounds opening a connection too: on a loaded machine 300 ms failed the start's migrations.
    const app = await startTestApp({ DATABASE_POOL_SIZE: "1", DATABASE_POOL_TIMEOUT_MS: "2000" });
    apps.push(app);
    const { apiKey } = await app.tenant();
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let holding!: () => void;
    const held = new Promise<void>((resolve) => {
      holding = resolve;
    });
    // A slow transaction keeps the pool's only connection.
    const slow = app.services.db.prisma.$transaction(
      async (tx) => {
        await tx.$queryRaw`SELECT 1`;
        holding();
        await released;
      },
      { timeout: 120_000 },
    );
    await held;
    try {
      const res = await app.request("/api/conversations", { key: apiKey });
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("2");
      expect(res.body).toEqual({ error: expect.stringMatching(/busy: try again in 2 seconds/), code: "RATE_LIMIT" });
    } finally {
      release();
      await slow;
    }
    expect((await app.request("/api/conversations", { key: apiKey })).status).toBe(200);
  }, 120_000);
});

describe("when Redis does not answer", () => {
  it("reports /readyz as degraded (200, naming Redis) and still serves chat, logging the lost connection at warn", async () => {
    const logs = captureLogs();
    const closedPort = await freePort();
    const app = await startTestApp(
      { REDIS_URL: `redis://127.0.0.1:${closedPort}`, LOG_LEVEL: "warn" },
      { logDestination: logs.destination },
    );
    apps.push(app);
    const { apiKey } = await app.tenant();

    const ready = await app.request("/readyz");
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({
      status: "degraded",
      database: "ok",
      redis: expect.stringMatching(/^error: /),
      degraded: ["redis"],
    });

    const chat = await app.request("/api/chat", { key: apiKey, body: { message: "How do I reset my PIN?" } });
    expect(chat.status).toBe(200);
    expect(chat.body.response).toEqual(expect.any(String));
    await expect.poll(() => logs.lines.some((l) => l.level === 40 && l.msg === "Redis connection failed")).toBe(true);
  }, 120_000);
});

describe("a client that sends its request slowly", () => {
  it("is answered 408 {error, code} and closed once HTTP_REQUEST_TIMEOUT_MS is up, while others are served", async () => {
    const app = await startTestApp({ HTTP_REQUEST_TIMEOUT_MS: "2000" });
    try {
      const { port } = new URL(app.url);
      const started = performance.now();
      const socket = connect(Number(port), "127.0.0.1");
      let answer = "";
      socket.on("data", (chunk) => {
        answer += chunk;
      });
      const closed = new Promise<number>((resolve) => socket.on("close", () => resolve(performance.now() - started)));
      socket.write(
        'POST /api/chat HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"message":"',
      );
      const trickle = setInterval(() => socket.writable && socket.write("a"), 200);
      try {
        expect((await fetch(`${app.url}/healthz`)).status).toBe(200);
        const after = await closed;
        // Node checks its connections every second: the limit, and at most that check and a loaded machine's delay.
        expect(after).toBeGreaterThanOrEqual(2_000);
        expect(after).toBeLessThan(20_000);
      } finally {
        clearInterval(trickle);
      }
      expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
      expect(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4))).toEqual({
        error: "The request was not received in time",
        code: "VALIDATION",
      });
    } finally {
      await app.close();
    }
  });
});
