import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { captureLogs } from "../helpers/logs.js";

let app: TestApp;
let key: string;
const logs = captureLogs();

beforeAll(async () => {
  app = await startTestApp({ LOG_LEVEL: "info" }, { logDestination: logs.destination });
  key = (await app.tenant()).apiKey;
});
afterAll(() => app?.close());

describe("operations endpoints", () => {
  it("answers /healthz without credentials", async () => {
    const res = await app.request("/healthz");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ok" });
  });

  it("answers /readyz with the state of the database and Redis", async () => {
    const res = await app.request("/readyz");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: "ready",
      database: "ok",
      redis: process.env.REDIS_URL ? "ok" : "not configured",
    });
  });

  it("answers /readyz with 503 when the database does not answer", async () => {
    const sql = app.services.db.sql;
    app.services.db.sql = { ...sql, query: async () => Promise.reject(new Error("connection refused")) };
    try {
      const res = await app.request("/readyz");
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ status: "unavailable", database: "error: connection refused" });
    } finally {
      app.services.db.sql = sql;
    }
  });

  it("exposes Prometheus metrics: requests by route and status, latency, job queue depth", async () => {
    await app.request("/api/conversations", { key });
    await app.request("/api/conversations/conv_missing", { key });
    await app.services.jobs.enqueue({ queue: "metrics.probe" });
    const res = await app.request("/metrics");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/plain");
    const text = res.body as string;
    expect(text).toMatch(/parley_http_requests_total\{method="GET",route="\/api\/conversations",status="200"\} 1/);
    expect(text).toMatch(/parley_http_requests_total\{method="GET",route="\/api\/conversations\/:id",status="404"\} 1/);
    expect(text).toContain("parley_http_request_duration_seconds_bucket");
    expect(text).toMatch(/parley_jobs\{queue="metrics.probe",status="pending"\} 1/);
    expect(text).toContain("parley_pipeline_stage_duration_seconds");
  });

  it("times every stage of a chat message, in the metrics and in one log line that leaves the text out", async () => {
    const message = "How do I reset the PIN of my debit card?";
    const res = await app.request("/api/chat", { key, body: { message } });
    expect(res.status).toBe(200);
    const text = (await app.request("/metrics")).body as string;
    for (const stage of ["router", "retriever", "engine", "deliver"]) {
      expect(text).toContain(`parley_pipeline_stage_duration_seconds_count{stage="${stage}",channel="api"} 1`);
    }

    const handled = logs.lines.filter((line) => line.msg === "message handled");
    expect(handled).toEqual([
      expect.objectContaining({
        level: 30,
        conversationId: res.body.conversationId,
        channel: "api",
        handledBy: "ai",
        stagesMs: {
          router: expect.any(Number),
          retriever: expect.any(Number),
          engine: expect.any(Number),
          deliver: expect.any(Number),
        },
        totalMs: expect.any(Number),
      }),
    ]);
    const { stagesMs, totalMs } = handled[0]!;
    const stages = Object.values(stagesMs as Record<string, number>);
    expect(stages.every((ms) => ms >= 0)).toBe(true);
    expect(stages.reduce((a, b) => a + b)).toBeLessThanOrEqual(totalMs + 1);
    expect(logs.text()).not.toContain("PIN of my debit card");
  });
});
