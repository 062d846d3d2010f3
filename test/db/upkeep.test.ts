import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startTestApp, type TestApp } from "../helpers/app.js";

// The embedded database has no autovacuum: the service does its work (src/db/upkeep.ts). A PostgreSQL server does
// its own, and the service leaves it to it.

const embedded = !process.env.DATABASE_URL;
let app: TestApp;
let bank: { tenantId: string; apiKey: string };

beforeAll(async () => {
  app = await startTestApp({ EMBEDDED_UPKEEP_INTERVAL_S: "0.2" });
  bank = await app.tenant("Upkeep Bank");
});

afterAll(async () => {
  await app?.close();
});

interface TableCounters {
  live: number;
  dead: number;
  analyzed: boolean;
  vacuums: number;
}

async function counters(table: string): Promise<TableCounters> {
  const [row] = await app.services.db.sql.query<TableCounters>(
    `SELECT n_live_tup::float8 AS live, n_dead_tup::float8 AS dead, last_analyze IS NOT NULL AS analyzed,
            vacuum_count::float8 AS vacuums
       FROM pg_stat_user_tables WHERE relname = $1`,
    [table],
  );
  return row!;
}

/** The planner's estimate of the tenant's chunks: what it plans a knowledge search by. */
async function estimatedChunks(tenantId: string): Promise<number> {
  const [plan] = await app.services.db.sql.query<{ "QUERY PLAN": Array<{ Plan: { "Plan Rows": number } }> }>(
    `EXPLAIN (FORMAT JSON) SELECT id FROM chunks WHERE tenant_id = '${tenantId}'`,
  );
  return plan!["QUERY PLAN"][0]!.Plan["Plan Rows"];
}

const paragraph = (i: number) =>
  `Section ${i}. ${Array.from({ length: 60 }, (_, w) => `term${(i * 61 + w * 7) % 997}`).join(" ")}.`;

describe.skipIf(!embedded)("the embedded database's upkeep", () => {
  it("analyzes a table once enough of it changed: the planner then knows how many chunks a tenant has", async () => {
    const manual = Array.from({ length: 400 }, (_, i) => paragraph(i)).join("\n\n");
    const res = await app.request("/api/knowledge/sources", {
      key: bank.apiKey,
      body: { type: "manual", title: "Operations manual", content: manual },
    });
    expect(res.status).toBe(201);
    const chunks = res.body.chunks as number;
    expect(chunks).toBeGreaterThan(60);
    await vi.waitFor(async () => expect((await counters("chunks")).analyzed).toBe(true), { timeout: 30_000 });
    const estimate = await estimatedChunks(bank.tenantId);
    expect(estimate).toBeGreaterThan(chunks * 0.5);
    expect(estimate).toBeLessThan(chunks * 2);
  });

  it("vacuums a table whose rows were replaced by updates, reclaiming them", async () => {
    const started = await app.request("/api/chat", { key: bank.apiKey, body: { message: "Hello" } });
    expect(started.status).toBe(200);
    const before = await counters("conversations");
    // Every update of a row leaves its old version behind for the vacuum to reclaim.
    for (let i = 0; i < 200; i++)
      await app.services.db.sql.query(`UPDATE conversations SET updated_at = now() WHERE id = $1`, [started.body.conversationId]);
    // A pass may come during the updates: those after it leave rows behind, fewer than autovacuum's threshold once
    // no further pass finds the table past it.
    await vi.waitFor(
      async () => {
        const after = await counters("conversations");
        expect(after.vacuums).toBeGreaterThan(before.vacuums);
        expect(after.dead).toBeLessThanOrEqual(50 + 0.2 * after.live);
      },
      { timeout: 30_000 },
    );
  });
});

describe.skipIf(embedded)("on a PostgreSQL server", () => {
  it("leaves vacuum and analyze to the server's autovacuum", () => {
    expect(app.services.upkeep).toBeNull();
  });
});
