import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { runScript } from "../helpers/process.js";
import { seedConversation } from "../helpers/seed.js";

// Issue 12, item 3: `npm run export`, through the REST API and (on PostgreSQL) on the database directly.

let app: TestApp;
let bank: { tenantId: string; apiKey: string };
let sms: string;
let widget: string;
let outDir: string;

beforeAll(async () => {
  app = await startTestApp();
  bank = await app.tenant("CLI Export Bank");
  sms = await seedConversation(app.services, bank.tenantId, { channel: "sms" });
  widget = await seedConversation(app.services, bank.tenantId, { channel: "widget", customerPhone: null });
  outDir = mkdtempSync(path.join(tmpdir(), "parley-export-"));
});
afterAll(async () => {
  rmSync(outDir, { recursive: true, force: true });
  await app?.close();
});

// The child process must not open the test's database itself, unless a test says so.
const env = { DATABASE_URL: "", REDIS_URL: "", DATA_DIR: "/nonexistent/parley-export-cli" };

describe("npm run export", () => {
  it("writes the API's export to a file, with the filters, through the service", async () => {
    const out = path.join(outDir, "sms.csv");
    const run = runScript(
      "src/cli/export.ts",
      ["--url", app.url, "--key", bank.apiKey, "--format", "csv", "--channel", "sms", "--out", out],
      env,
    );
    expect(await run.exit(), run.stderr()).toBe(0);
    const rows = parse(readFileSync(out), { bom: true, columns: true }) as Array<Record<string, string>>;
    expect(rows.map((r) => r.conversation_id)).toEqual([sms, sms]);

    const one = runScript("src/cli/export.ts", ["--url", app.url, "--key", bank.apiKey, "--conversation", widget], env);
    expect(await one.exit(), one.stderr()).toBe(0);
    expect(JSON.parse(one.stdout()).map((c: { id: string }) => c.id)).toEqual([widget]);
  }, 120_000);

  it("exits 2 on bad arguments, and when the service refuses, leaving no file", async () => {
    const usage = runScript("src/cli/export.ts", ["--format", "csv"], env);
    expect(await usage.exit()).toBe(2);
    expect(usage.stderr()).toContain("Usage: npm run --silent export");
    const out = path.join(outDir, "refused.json");
    const viewer = await app.keyFor(bank.tenantId, "viewer");
    const refused = runScript("src/cli/export.ts", ["--url", app.url, "--key", viewer, "--out", out], env);
    expect(await refused.exit()).toBe(2);
    expect(refused.stderr()).toMatch(/The service answered 403: .*admin or owner/);
    expect(existsSync(out)).toBe(false);
    const invalid = runScript("src/cli/export.ts", ["--url", app.url, "--key", bank.apiKey, "--from", "last week"], env);
    expect(await invalid.exit()).toBe(2);
    expect(invalid.stderr()).toContain("The service answered 422");
  }, 120_000);

  it.runIf(Boolean(process.env.DATABASE_URL))(
    "exports on the database directly with --tenant",
    async () => {
      const direct = runScript("src/cli/export.ts", ["--tenant", bank.tenantId, "--channel", "widget"], {
        ...env,
        DATABASE_URL: app.database.url!,
      });
      expect(await direct.exit(), direct.stderr()).toBe(0);
      expect(JSON.parse(direct.stdout()).map((c: { id: string }) => c.id)).toEqual([widget]);
      const unknown = runScript("src/cli/export.ts", ["--tenant", "ten_missing"], { ...env, DATABASE_URL: app.database.url! });
      expect(await unknown.exit()).toBe(2);
      expect(unknown.stderr()).toContain("No tenant ten_missing");
    },
    120_000,
  );
});
