import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../helpers/database.js";
import { freePort, runScript, whenServing } from "../helpers/process.js";
import { testTempDir } from "../helpers/temp.js";

const dataDir = testTempDir("parley-cli");
let database: TestDatabase;
let env: Record<string, string>;

beforeAll(async () => {
  // On PostgreSQL a fresh database; on the embedded defaults a fresh DATA_DIR.
  database = await createTestDatabase();
  env = { DATA_DIR: dataDir, DATABASE_URL: database.url ?? "", REDIS_URL: "" };
});
afterAll(async () => {
  await database.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("npm run tenant -- create", () => {
  it("with --json prints exactly one JSON line with the tenant id and a working API key", async () => {
    const cli = runScript("src/cli/tenant.ts", ["create", "Acme Savings", "--json"], env);
    expect(await cli.exit()).toBe(0);
    const lines = cli.stdout().split("\n").filter(Boolean);
    expect(lines).toHaveLength(1);
    const created = JSON.parse(lines[0]!);
    expect(Object.keys(created).sort()).toEqual(["apiKey", "tenantId"]);
    expect(created.tenantId).toMatch(/^ten_/);
    expect(created.apiKey).toMatch(/^prl_/);

    const port = await freePort();
    const service = runScript("src/main.ts", [], { ...env, PORT: String(port) });
    try {
      const res = await whenServing(`http://127.0.0.1:${port}/api/conversations`, {
        headers: { authorization: `Bearer ${created.apiKey}` },
      });
      expect(res.status).toBe(200);

      if (!database.url) {
        // The embedded database belongs to the running service: a second process must not open it.
        const refused = runScript("src/cli/tenant.ts", ["create", "Second"], env);
        expect(await refused.exit()).toBe(1);
        expect(refused.stderr()).toMatch(/in use by process \d+/);
      }
    } finally {
      service.child.kill("SIGTERM");
      await service.exit();
    }
    // Three processes in turn, each loading the service's code: on a loaded 2-core machine, a minute is not enough.
  }, 180_000);

  it("without a name prints the usage and fails", async () => {
    const cli = runScript("src/cli/tenant.ts", ["create"], env);
    expect(await cli.exit()).toBe(2);
    expect(cli.stderr()).toContain("Usage: npm run tenant -- create");
    expect(cli.stdout()).toBe("");
  });
});
