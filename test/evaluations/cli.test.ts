import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { runScript } from "../helpers/process.js";
import { testTempDir } from "../helpers/temp.js";

let app: TestApp;
let bank: { tenantId: string; apiKey: string };

beforeAll(async () => {
  app = await startTestApp();
  bank = await app.tenant("CI Bank");
  const source = await app.request("/api/knowledge/sources", {
    key: bank.apiKey,
    body: {
      type: "manual",
      title: "Cards FAQ",
      content:
        "# Cards FAQ\n\n## How long does a new card take to arrive?\nA new debit card arrives within 5 working days by post.\n",
    },
  });
  expect(source.status).toBe(201);
  const cases = [
    { question: "How long does a new card take to arrive?", expect: "contains", contains: ["5 working days"] },
    { question: "What is the weather on Mars?", expect: "decline" },
    { question: "How long does a new card take to arrive?", expect: "contains", contains: ["overnight"] },
  ];
  expect((await app.request("/api/evaluations/cases/import", { key: bank.apiKey, body: { cases } })).status).toBe(200);
}, 120_000);
afterAll(() => app?.close());

// The child process must not open the test's database itself, unless a test says so.
const env = { DATABASE_URL: "", REDIS_URL: "", DATA_DIR: "/nonexistent/parley-eval-cli" };

describe("npm run eval", () => {
  it("through the service's REST API: prints each case and the totals, exits 0 at or above --min and 1 below it", async () => {
    const passing = runScript("src/cli/eval.ts", ["--url", app.url, "--key", bank.apiKey, "--min", "0.6"], env);
    expect(await passing.exit(), passing.stderr()).toBe(0);
    const out = passing.stdout();
    expect(out).toMatch(/^PASS {2}contains {2}How long does a new card take to arrive\?/m);
    expect(out).toMatch(/^FAIL {2}contains .* missing "overnight"$/m);
    expect(out).toMatch(/^PASS {2}decline /m);
    expect(out).toContain("Accuracy:      66.7% (2/3), minimum 60.0%");
    expect(out).toContain("Decline rate:  33.3%");
    expect(out).toContain("Since previous: no previous run");

    const failing = runScript("src/cli/eval.ts", ["--url", app.url, "--key", bank.apiKey, "--min", "0.9"], env);
    expect(await failing.exit()).toBe(1);
    expect(failing.stdout()).toContain("Since previous: +0.0 points (0 newly failing, 0 newly passing)");
    const runs = await app.request("/api/evaluations/runs", { key: bank.apiKey });
    expect(runs.body.runs.map((r: { trigger: string }) => r.trigger)).toEqual(["cli", "cli"]);
  }, 120_000);

  it("exits 2 with the usage on bad arguments, and 2 when the service refuses the key", async () => {
    const noTarget = runScript("src/cli/eval.ts", ["--min", "0.5"], env);
    expect(await noTarget.exit()).toBe(2);
    expect(noTarget.stderr()).toContain("Usage: npm run eval");
    const badMin = runScript("src/cli/eval.ts", ["--url", app.url, "--key", bank.apiKey, "--min", "80"], env);
    expect(await badMin.exit()).toBe(2);
    const viewer = await app.keyFor(bank.tenantId, "viewer");
    const refused = runScript("src/cli/eval.ts", ["--url", app.url, "--key", viewer], env);
    expect(await refused.exit()).toBe(2);
    expect(refused.stderr()).toContain("The service answered 403");
  }, 120_000);

  it.runIf(!process.env.DATABASE_URL)(
    "refuses --tenant while a service holds the embedded database, and points to --url and --key",
    async () => {
      const dataDir = testTempDir("parley-eval");
      try {
        // The lock a running service leaves beside its embedded database, held by a live process: this one.
        writeFileSync(path.join(dataDir, "pglite.lock"), String(process.pid));
        const refused = runScript("src/cli/eval.ts", ["--tenant", bank.tenantId], { ...env, DATA_DIR: dataDir });
        expect(await refused.exit()).toBe(2);
        expect(refused.stderr()).toMatch(/in use by process \d+/);
        expect(refused.stderr()).toContain("--url http://host:port --key <API key>");
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
    120_000,
  );

  it.runIf(Boolean(process.env.DATABASE_URL))(
    "runs on the database directly with --tenant",
    async () => {
      const direct = runScript("src/cli/eval.ts", ["--tenant", bank.tenantId, "--min", "0.5"], {
        ...env,
        DATABASE_URL: app.database.url!,
      });
      expect(await direct.exit(), direct.stderr()).toBe(0);
      expect(direct.stdout()).toContain("Accuracy:      66.7% (2/3)");
      const unknown = runScript("src/cli/eval.ts", ["--tenant", "ten_missing"], { ...env, DATABASE_URL: app.database.url! });
      expect(await unknown.exit()).toBe(2);
      expect(unknown.stderr()).toContain("No tenant ten_missing");
    },
    120_000,
  );
});
