import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDevelopmentSet } from "../../src/evaluations/demo-set.js";
import { demoTenantName, ensureDemoTenant } from "../../src/tenants/bootstrap.js";
import { startTestApp, type TestApp } from "../helpers/app.js";

const tinySet = fileURLToPath(new URL("./fixtures/tiny-set/", import.meta.url));

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
}, 120_000);
afterAll(() => app?.close());

describe("the demo tenant's evaluation set", () => {
  it("is the development set: its FAQ files as manual sources and its questions as cases, ready to run", async () => {
    const demo = await ensureDemoTenant(app.services, tinySet);
    expect(demo).not.toBeNull();
    const sources = await app.request("/api/knowledge/sources", { key: demo!.apiKey });
    expect(sources.body.sources).toMatchObject([{ type: "manual", title: "Cards", status: "ready" }]);
    const cases = await app.request("/api/evaluations/cases", { key: demo!.apiKey });
    // The answer without phrases to look for cannot be judged: it is left out.
    expect(cases.body.cases).toMatchObject([
      { question: "when will my new card arrive", expect: "contains", contains: ["5 working days"] },
      { question: "what is the weather on mars", expect: "decline" },
    ]);
    const run = await app.request("/api/evaluations/runs", { key: demo!.apiKey, method: "POST" });
    expect(run.body).toMatchObject({ status: "completed", cases: 2, passed: 2 });
    expect((await app.services.db.prisma.tenant.findFirstOrThrow({ where: { id: demo!.tenantId } })).name).toBe(demoTenantName);
  }, 120_000);

  it("is skipped, not an error, where the development set is not shipped", async () => {
    const { tenantId } = await app.tenant("Bare Demo");
    expect(await seedDevelopmentSet(app.services, tenantId, "/nonexistent/answers")).toEqual({ sources: 0, cases: 0 });
    expect(await app.services.db.prisma.evaluationCase.count({ where: { tenantId } })).toBe(0);
  });
});
