import { spawn } from "node:child_process";
import { readdirSync, rmSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "../src/db/client.js";
import { freePort, repoRoot, whenServing } from "./helpers/process.js";
import { testTempDir } from "./helpers/temp.js";

const dataDir = testTempDir("parley-npm-start");
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Whether any process of the group still runs. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

// An orchestrator signals the process it started, here npm: the service must stop with it, not live on as an orphan.
describe("npm start", () => {
  it("stops every process it started on SIGTERM to npm, leaving its data and nothing else, the embedded database free to reopen", async () => {
    const port = await freePort();
    const npm = spawn("npm", ["start"], {
      cwd: repoRoot,
      // Its own process group, so that the test can see whether anything of it is left.
      detached: true,
      env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), DATABASE_URL: "", REDIS_URL: "", LOG_LEVEL: "warn" },
      stdio: "ignore",
    });
    const pgid = npm.pid!;
    try {
      expect((await whenServing(`http://127.0.0.1:${port}/healthz`, undefined, 120_000)).status).toBe(200);
      npm.kill("SIGTERM");
      await expect.poll(() => groupAlive(pgid), { timeout: 60_000, interval: 100 }).toBe(false);
      // Its data and nothing else: the database's lock is released, no temporary file is left. The demo tenant's
      // vector index, built by the pipeline's warm-up at start, is kept beside the database (DESIGN §5).
      expect(readdirSync(dataDir).sort()).toEqual(["pglite", "secrets.key", "vector-index"]);

      const db = await openDatabase({ pgliteDir: path.join(dataDir, "pglite") });
      const [tenants] = await db.sql.query<{ count: number }>("SELECT count(*)::int AS count FROM tenants");
      expect(tenants!.count).toBe(1);
      await db.close();
    } finally {
      if (groupAlive(pgid)) process.kill(-pgid, "SIGKILL");
    }
  }, 240_000);
});
