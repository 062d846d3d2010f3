import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { auditIntentLeaseMs, auditRecoveryQueue, openAuditIntent } from "../../src/audit/intents.js";
import { actorOf } from "../../src/audit/record.js";
import { auditTargets } from "../../src/audit/targets.js";
import { scopeToTenant } from "../../src/db/tenant-scope.js";
import { startTestApp, type TestApp } from "../helpers/app.js";

// An instance that stops between a change and its audit record (the record is written once the change's own
// transaction has committed) leaves the change's intent behind; the sweep turns it into a record, so no change goes
// unrecorded. The stop is reproduced at that exact instant: the intent the audit plugin writes first, then the change
// as the resolver commits it, then nothing.

let app: TestApp;
let bank: { tenantId: string; apiKey: string };
let owner: string;

const accessToken = "EAAG-intent-access-token-0001";

beforeAll(async () => {
  app = await startTestApp();
  bank = await app.tenant("Intent Bank");
  owner = await app.keyFor(bank.tenantId, "owner");
  app.startWorker();
});
afterAll(() => app?.close());

const intents = () => app.services.db.sql.query<{ id: string; before: unknown }>("SELECT id, before FROM audit_intents");
const audit = async (query: string) => {
  const res = await app.request(`/api/audit?limit=100&${query}`, { key: owner });
  expect(res.status).toBe(200);
  return res.body.records as Array<Record<string, any>>;
};

describe("audit intents", () => {
  it("leave nothing behind when a change is recorded, or when it is refused (nothing changed, nothing recorded)", async () => {
    const saved = await app.request("/api/tenant/channels/chatapp", {
      method: "PUT",
      key: owner,
      body: {
        credentials: {
          phone_number_id: "510000000000077",
          access_token: accessToken,
          verify_token: "verify-intent",
          app_secret: "s3cret-app",
        },
      },
    });
    expect(saved.status).toBe(201);
    expect(await audit("action=channel.save")).toHaveLength(1);
    const refused = await app.request("/graphql", {
      key: owner,
      body: { query: 'mutation { updateTenant(name: "") { id } }' },
    });
    expect(refused.body.errors?.[0]?.extensions?.code).toBe("VALIDATION");
    expect(await audit("action=settings.update")).toHaveLength(0);
    expect(await intents()).toEqual([]);
  });

  it("become a record of the change when the instance stopped before recording it, once, with secrets masked", async () => {
    const principal = { kind: "apiKey" as const, id: "key_crashed", label: "pk_crashed", role: "owner", tenantId: bank.tenantId };
    const scope = { db: scopeToTenant(app.services.db.prisma, bank.tenantId), services: app.services, tenantId: bank.tenantId };
    const channel = await app.services.db.prisma.channel.findFirstOrThrow({
      where: { tenantId: bank.tenantId, type: "chatapp" },
    });
    // What the audit plugin writes before the resolver runs …
    const stale = await openAuditIntent(app.services, {
      tenantId: bank.tenantId,
      actor: actorOf(principal as never),
      ip: "203.0.113.9",
      action: "channel.update",
      target: { type: "channel", id: channel.id },
      before: await auditTargets.channel(scope, channel.id),
    });
    // … the change the resolver committed, and then the instance is gone.
    await app.services.db.prisma.channel.update({ where: { id: channel.id }, data: { enabled: false } });
    const [row] = await intents();
    expect(JSON.stringify(row!.before)).not.toContain(accessToken);
    const fresh = await openAuditIntent(app.services, {
      tenantId: bank.tenantId,
      actor: actorOf(principal as never),
      action: "channel.update",
      target: { type: "channel", id: channel.id },
    });
    // The stale one is past the lease; the fresh one could be a change still running on another instance.
    await app.services.db.sql.query("UPDATE audit_intents SET created_at = now() - $1::interval WHERE id = $2", [
      `${auditIntentLeaseMs + 60_000} milliseconds`,
      stale,
    ]);
    await app.services.jobs.enqueue({ queue: auditRecoveryQueue });
    await app.services.jobs.enqueue({ queue: auditRecoveryQueue });

    await vi.waitFor(async () => expect((await intents()).map((i) => i.id)).toEqual([fresh]), { timeout: 30_000, interval: 50 });
    const [record, ...more] = await audit("action=channel.update");
    expect(more).toEqual([]);
    expect(record).toMatchObject({
      actor_kind: "apiKey",
      actor_id: "key_crashed",
      ip: "203.0.113.9",
      target_type: "channel",
      target_id: channel.id,
      before: { enabled: true },
      after: { enabled: false },
      details: { outcome: expect.stringContaining("unknown") },
    });
    // Masked once, like every other record of this channel: the same fingerprint as the save recorded.
    const [save] = await audit("action=channel.save");
    expect(record!.before.credentials.access_token).toBe(save!.after.credentials.access_token);
    expect(JSON.stringify(record)).not.toContain(accessToken);
    const verified = await app.request("/api/audit/verify", { key: owner });
    expect(verified.body).toMatchObject({ ok: true, broken: null });
  });
});
