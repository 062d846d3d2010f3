import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { openDatabase } from "../../src/db/client.js";
import { migrate } from "../../src/db/migrate.js";
import { createTenant } from "../../src/tenants/create-tenant.js";
import { startWebhookReceiver } from "../fakes/webhook-receiver.js";
import { createTestDatabase } from "../helpers/database.js";
import { freePort, runScript, type Spawned, whenServing } from "../helpers/process.js";

// A real service process killed with SIGKILL after a change committed and while its events are being delivered:
// restarted on the same data, it delivers every event (the outbox and the delivery jobs were committed with the
// change). On PostgreSQL the restarted instance takes the dead one's jobs over once their lease runs out.

const dataDir = mkdtempSync(path.join(tmpdir(), "parley-events-crash-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe("event notifications through a crash", () => {
  it("delivers every event of a committed change after the process is killed mid-delivery and restarted", async () => {
    const receiver = await startWebhookReceiver();
    const database = process.env.DATABASE_URL ? await createTestDatabase() : null;
    const env = {
      DATA_DIR: dataDir,
      DATABASE_URL: database?.url ?? "",
      REDIS_URL: process.env.REDIS_URL ?? "",
      EGRESS_ALLOW_CIDRS: "127.0.0.1/32",
      RATE_LIMIT_MAX: "100000",
      WORKER_CONCURRENCY: "8",
      JOB_LEASE_MS: "3000",
    };
    const spawned: Spawned[] = [];
    const start = async () => {
      const port = await freePort();
      const child = runScript("src/main.ts", [], { ...env, PORT: String(port) });
      spawned.push(child);
      const url = `http://127.0.0.1:${port}`;
      await whenServing(`${url}/healthz`, undefined, 240_000);
      return { url, child };
    };
    try {
      // A tenant of its own before the first start: the service then seeds no demo tenant, which takes a while.
      const db = await openDatabase({ url: database?.url, pgliteDir: path.join(dataDir, "pglite") });
      const key = await migrate(db.sql)
        .then(() => createTenant(db.prisma, "Crash Bank"))
        .then((tenant) => tenant.apiKey)
        .finally(() => db.close());
      let service = await start();
      const call = (pathname: string, body: unknown) =>
        fetch(`${service.url}${pathname}`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        }).then(async (res) => ({ status: res.status, body: await res.json() }));
      const types = ["conversation.created", "message.received", "message.sent"];
      const endpoint = await call("/api/webhooks", { url: `${receiver.url}/crm`, event_types: types });
      expect(endpoint.status).toBe(201);
      receiver.trust("/crm", endpoint.body.secret);

      // The receiver takes the deliveries and does not answer: they are in flight when the process dies.
      receiver.hold();
      const chat = await call("/api/chat", { message: "How do I reset my card PIN?" });
      expect(chat.status).toBe(200);
      const inFlight = await receiver.waitFor(() => true, 3, 60_000);
      const ids = new Set(inFlight.map((r) => r.headers["webhook-id"]));
      service.child.child.kill("SIGKILL");
      await service.child.exit();
      receiver.release();

      service = await start();
      const delivered = await receiver.waitFor((r) => r.at > Math.max(...inFlight.map((f) => f.at)), 3, 120_000);
      expect(delivered.map((r) => r.error)).toEqual([null, null, null]);
      expect(new Set(delivered.map((r) => r.headers["webhook-id"]))).toEqual(ids);
      expect(delivered.map((r) => r.event!.type).sort()).toEqual(types);
      expect(delivered.find((r) => r.event!.type === "message.sent")!.event!.data.message.id).toBe(chat.body.messageId);

      // The receiver has the third delivery before the service has read its answer and recorded it.
      await vi.waitFor(
        async () => {
          const log = await fetch(`${service.url}/api/webhooks/${endpoint.body.id}/deliveries`, {
            headers: { authorization: `Bearer ${key}` },
          }).then((res) => res.json());
          expect(log.deliveries.filter((d: { status: string }) => d.status === "succeeded")).toHaveLength(3);
        },
        { timeout: 30_000, interval: 100 },
      );
      service.child.child.kill("SIGTERM");
      await service.child.exit();
    } finally {
      for (const child of spawned) child.child.kill("SIGKILL");
      await receiver.close();
      await database?.drop();
    }
  }, 400_000);
});
