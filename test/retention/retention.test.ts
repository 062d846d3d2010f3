import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type ChainedFields, genesisHash, recordHash } from "../../src/audit/chain.js";
import { newId } from "../../src/db/ids.js";
import { enforceRetention } from "../../src/retention/enforce.js";
import { retentionQueue, retentionScheduleQueue } from "../../src/retention/schedule.js";
import { HoldConversationDocument, RunRetentionDocument, SetRetentionDocument, TenantRetentionDocument } from "../generated.js";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { runScript } from "../helpers/process.js";
import { seedConversation } from "../helpers/seed.js";

let app: TestApp;
const dayMs = 86_400_000;

beforeAll(async () => {
  app = await startTestApp();
  app.startWorker();
});
afterAll(() => app?.close());

/** A conversation whose last activity was `days` ago, as the pipeline would have left it. */
async function conversationAged(tenantId: string, days: number, input: Parameters<typeof seedConversation>[2] = {}) {
  const at = new Date(Date.now() - days * dayMs);
  const id = await seedConversation(app.services, tenantId, { createdAt: at, ...input });
  await app.services.db.sql.query("UPDATE conversations SET updated_at = $2 WHERE id = $1", [id, at]);
  return id;
}

const auditOf = async (key: string, action: string) => {
  const res = await app.request(`/api/audit?limit=100&action=${action}`, { key });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.records as Array<Record<string, any>>;
};

/** Starts a run through the API and waits for its audit record (the run's last act). */
async function runRetention(key: string, runsBefore: number) {
  const started = await app.graphql(RunRetentionDocument, {}, key);
  expect(started.errors).toBeUndefined();
  return vi.waitFor(
    async () => {
      const runs = await auditOf(key, "retention.run");
      expect(runs.length).toBe(runsBefore + 1);
      return runs[0]!;
    },
    { timeout: 60_000, interval: 100 },
  );
}

describe("retention settings", () => {
  it("keeps everything for ever by default, and refuses periods below a class's minimum", async () => {
    const bank = await app.tenant("Default Bank");
    const read = await app.graphql(TenantRetentionDocument, {}, bank.apiKey);
    expect(read.data?.tenant.retention).toEqual({
      messages: null,
      identities: null,
      auditRecords: null,
      knowledgeFiles: null,
      deliveryLogs: null,
    });
    const tooShort = await app.graphql(SetRetentionDocument, { periods: { auditRecords: 30, deliveryLogs: 1 } }, bank.apiKey);
    expect(tooShort.errors?.[0]?.extensions?.code).toBe("VALIDATION");
    expect(JSON.stringify(tooShort.errors?.[0]?.extensions?.details)).toMatch(/auditRecords.*at least 365 days/);
    const negative = await app.graphql(SetRetentionDocument, { periods: { messages: -1 } }, bank.apiKey);
    expect(negative.errors?.[0]?.extensions?.code).toBe("VALIDATION");
    const agent = await app.keyFor(bank.tenantId, "agent");
    const forbidden = await app.graphql(SetRetentionDocument, { periods: { messages: 30 } }, agent);
    expect(forbidden.errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
    expect((await app.graphql(RunRetentionDocument, {}, agent)).errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
  });

  it("records a change of the periods as settings.update, before and after", async () => {
    const bank = await app.tenant("Settings Bank");
    const set = await app.graphql(SetRetentionDocument, { periods: { messages: 90, auditRecords: 2555 } }, bank.apiKey);
    expect(set.data?.setRetention.retention).toMatchObject({ messages: 90, identities: null, auditRecords: 2555 });
    const [record] = await auditOf(bank.apiKey, "settings.update");
    expect(record!.before.settings).toEqual({});
    expect(record!.after.settings.retention).toMatchObject({ messages: 90, auditRecords: 2555, identities: null });
  });
});

describe("the retention run", () => {
  it("deletes transcripts and identities older than their periods, keeps newer and held ones, and audits counts only", async () => {
    const bank = await app.tenant("Retaining Bank");
    const other = await app.tenant("Keep-All Bank");
    const secret = "my account number is 12345678";
    const expired = await conversationAged(bank.tenantId, 100, {
      customerPhone: "+15550000001",
      messages: [
        { role: "customer", content: secret },
        { role: "assistant", content: "Please never share it here." },
      ],
    });
    const held = await conversationAged(bank.tenantId, 100, { customerPhone: "+15550000002" });
    const anonymised = await conversationAged(bank.tenantId, 60, { customerPhone: "+15550000003" });
    const recent = await conversationAged(bank.tenantId, 5, { customerPhone: "+15550000004" });
    const othersOld = await conversationAged(other.tenantId, 400);

    const hold = await app.graphql(HoldConversationDocument, { conversationId: held, reason: "Complaint FOS-2291" }, bank.apiKey);
    expect(hold.data?.placeLegalHold).toMatchObject({ conversationId: held, active: true });
    // Another tenant's conversation cannot be held from here (nor learnt to exist).
    const foreign = await app.graphql(HoldConversationDocument, { conversationId: othersOld, reason: "not ours" }, bank.apiKey);
    expect(foreign.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");

    await app.graphql(SetRetentionDocument, { periods: { messages: 90, identities: 30 } }, bank.apiKey);
    const run = await runRetention(bank.apiKey, 0);
    expect(run).toMatchObject({ actor_kind: "system", target_type: "tenant", target_id: bank.tenantId });
    expect(run.details.removed.messages).toEqual({ conversations: 1, messages: 2, heldBack: 1 });
    // The held conversation keeps its customer too; the 60-day-old one loses it.
    expect(run.details.removed.identities).toEqual({ conversations: 1, heldBack: 1 });
    expect(run.details.periods).toMatchObject({ messages: 90, identities: 30, auditRecords: null });
    const recorded = JSON.stringify(run);
    for (const text of [secret, "+15550000001", "+15550000003"]) expect(recorded).not.toContain(text);

    const read = (id: string, key = bank.apiKey) => app.request(`/api/conversations/${id}`, { key });
    expect((await read(expired)).status).toBe(404);
    expect((await read(held)).body).toMatchObject({ customer_phone: "+15550000002", message_count: 2 });
    expect((await read(anonymised)).body).toMatchObject({ customer_phone: null, customer_id: null, message_count: 2 });
    expect((await read(recent)).body).toMatchObject({ customer_phone: "+15550000004" });
    const messages = await app.request(`/api/conversations/${anonymised}/messages`, { key: bank.apiKey });
    expect(messages.body.messages ?? messages.body).toHaveLength(2);
    expect((await read(othersOld, other.apiKey)).status).toBe(200);

    // A second run finds nothing more to do, and says what the hold still keeps.
    const again = await runRetention(bank.apiKey, 1);
    expect(again.details.removed.messages).toEqual({ conversations: 0, messages: 0, heldBack: 1 });
  });

  it("runs once per request still waiting, and two runs at once count nothing twice", async () => {
    const bank = await app.tenant("Busy Bank");
    for (let i = 0; i < 12; i++)
      await conversationAged(bank.tenantId, 40, { customerPhone: `+1555001${String(i).padStart(4, "0")}` });
    await app.graphql(SetRetentionDocument, { periods: { messages: 30 } }, bank.apiKey);
    const asked = await Promise.all([1, 2, 3].map(() => app.graphql(RunRetentionDocument, {}, bank.apiKey)));
    // A request made while a run waits or runs is that run (the job's id); one made after it finished is a new run.
    const jobs = new Set(asked.map((r) => r.data?.runRetention));
    const runs = await vi.waitFor(
      async () => {
        const found = await auditOf(bank.apiKey, "retention.run");
        expect(found.length).toBe(jobs.size);
        return found;
      },
      { timeout: 60_000, interval: 100 },
    );
    const removed = runs.map((r) => r.details.removed.messages.conversations as number);
    expect(removed.reduce((a, b) => a + b, 0)).toBe(12);

    for (let i = 0; i < 12; i++) await conversationAged(bank.tenantId, 40);
    const both = await Promise.all([
      enforceRetention(app.services, bank.tenantId),
      enforceRetention(app.services, bank.tenantId),
    ]);
    const counted = both.map((r) => r?.messages?.conversations ?? 0);
    expect(counted.reduce((a, b) => a + b, 0)).toBe(12);
    const [left] = await app.services.db.sql.query<{ n: string | number }>(
      "SELECT count(*) AS n FROM conversations WHERE tenant_id = $1",
      [bank.tenantId],
    );
    expect(Number(left!.n)).toBe(0);
  });
});

describe("the schedule", () => {
  it("starts a run for every tenant with a period, none for the others, and books its next check", async () => {
    const scheduled = await app.tenant("Scheduled Bank");
    const unset = await app.tenant("Unset Bank");
    await app.graphql(SetRetentionDocument, { periods: { deliveryLogs: 30 } }, scheduled.apiKey);
    const check = await app.services.jobs.enqueue({ queue: retentionScheduleQueue });
    await vi.waitFor(
      async () => {
        expect(await auditOf(scheduled.apiKey, "retention.run")).toHaveLength(1);
        const job = await app.services.db.prisma.job.findUniqueOrThrow({ where: { id: check } });
        expect(job.status).toBe("completed");
      },
      { timeout: 60_000, interval: 100 },
    );
    expect(await app.services.db.prisma.job.count({ where: { tenantId: unset.tenantId, queue: retentionQueue } })).toBe(0);
    const next = await app.services.db.prisma.job.findFirstOrThrow({
      where: { queue: retentionScheduleQueue, status: "pending" },
    });
    expect(next.runAt.getTime()).toBeGreaterThan(Date.now());
  });
});

describe("knowledge files, delivery logs and the service's job records", () => {
  it("removes uploaded files, event notifications and finished jobs older than their periods, and keeps newer ones", async () => {
    const bank = await app.tenant("Tidy Bank");
    const sql = app.services.db.sql;
    const ago = (days: number) => new Date(Date.now() - days * dayMs);
    const source = (days: number) => {
      const id = newId("src");
      return sql
        .query(
          `INSERT INTO knowledge_sources (id, tenant_id, type, title, status, file_name, file_data, last_synced_at, created_at, updated_at)
           VALUES ($1, $2, 'pdf', 'Fees', 'ready', 'fees.pdf', decode('255044462d312e34', 'hex'), $3, $3, $3)`,
          [id, bank.tenantId, ago(days)],
        )
        .then(() => id);
    };
    const oldFile = await source(100);
    await source(3);
    const endpoint = newId("whe");
    await sql.query(
      `INSERT INTO webhook_endpoints (id, tenant_id, url, event_types, secret, enabled, updated_at)
       VALUES ($1, $2, 'https://hooks.example/parley', '{}', 'sealed', false, now())`,
      [endpoint, bank.tenantId],
    );
    for (const days of [100, 3]) {
      const event = newId("wev");
      await sql.query(
        "INSERT INTO webhook_events (id, tenant_id, type, payload, created_at) VALUES ($1, $2, 'message.received', '{}'::jsonb, $3)",
        [event, bank.tenantId, ago(days)],
      );
      await sql.query(
        `INSERT INTO webhook_deliveries (id, tenant_id, endpoint_id, event_id, event_type, attempt, status, latency_ms, created_at)
         VALUES ($1, $2, $3, $4, 'message.received', 1, 'succeeded', 12, $5)`,
        [newId("whd"), bank.tenantId, endpoint, event, ago(days)],
      );
      await sql.query(
        `INSERT INTO jobs (id, tenant_id, queue, payload, status, created_at, updated_at, finished_at)
         VALUES ($1, $2, 'channel.inbound', '{}'::jsonb, 'completed', $3, $3, $3)`,
        [newId("job"), bank.tenantId, ago(days)],
      );
    }

    await app.graphql(SetRetentionDocument, { periods: { messages: 60, knowledgeFiles: 30, deliveryLogs: 30 } }, bank.apiKey);
    const run = await runRetention(bank.apiKey, 0);
    expect(run.details.removed).toMatchObject({
      knowledgeFiles: { files: 1 },
      deliveryLogs: { events: 1, deliveries: 1 },
      jobs: 1,
    });
    const [files] = await sql.query<{ kept: string | number; removed: string | number }>(
      `SELECT count(*) FILTER (WHERE file_data IS NOT NULL) AS kept, count(*) FILTER (WHERE file_data IS NULL) AS removed
         FROM knowledge_sources WHERE tenant_id = $1`,
      [bank.tenantId],
    );
    expect([Number(files!.kept), Number(files!.removed)]).toEqual([1, 1]);
    const [events] = await sql.query<{ n: string | number }>("SELECT count(*) AS n FROM webhook_events WHERE tenant_id = $1", [
      bank.tenantId,
    ]);
    expect(Number(events!.n)).toBe(1);

    // The source keeps its place (and its indexed text); a resync says why it cannot read the file again.
    const resync = await app.request("/api/knowledge/sources", {
      method: "PATCH",
      key: bank.apiKey,
      body: { id: oldFile, action: "sync" },
    });
    expect(resync.status, JSON.stringify(resync.body)).toBe(422);
    expect(resync.body.error).toMatch(/retention/);
  });
});

/** Audit records made `days` ago, chained as the service chains them (a tenant's trail from before its periods were set). */
async function backdatedTrail(tenantId: string, days: number[]) {
  let prevHash = genesisHash;
  for (const [i, ago] of days.entries()) {
    const fields: ChainedFields = {
      id: newId("aud"),
      tenantId,
      seq: i + 1,
      createdAt: new Date(Date.now() - ago * dayMs).toISOString(),
      actorKind: "system",
      actorId: null,
      actorLabel: "migration",
      actorRole: null,
      ip: null,
      action: "channel.save",
      targetType: "channel",
      targetId: `chn_${i}`,
      before: null,
      after: { name: `Channel ${i}` },
      details: null,
      prevHash,
    };
    const hash = recordHash(fields);
    await app.services.db.sql.query(
      `INSERT INTO audit_records (id, tenant_id, seq, created_at, actor_kind, actor_label, action, target_type, target_id,
                                  after, prev_hash, hash)
       VALUES ($1, $2, $3, $4::timestamptz, $5, $6, $7, $8, $9, $10::jsonb, $11, $12)`,
      [
        fields.id,
        tenantId,
        fields.seq,
        fields.createdAt,
        "system",
        "migration",
        fields.action,
        "channel",
        fields.targetId,
        JSON.stringify(fields.after),
        prevHash,
        hash,
      ],
    );
    prevHash = hash;
  }
}

describe("audit records under retention", () => {
  it("removes the oldest records only, leaves an anchor, and the trail still verifies", async () => {
    const bank = await app.tenant("Archiving Bank");
    await backdatedTrail(bank.tenantId, [800, 700, 600, 500, 10]);
    await app.graphql(SetRetentionDocument, { periods: { auditRecords: 400 } }, bank.apiKey);
    const run = await runRetention(bank.apiKey, 0);
    expect(run.details.removed.auditRecords).toMatchObject({ records: 4, anchor: { seq: 4 } });

    const left = await auditOf(bank.apiKey, "");
    // The last old record, then setting the period, then asking for the run and the pruning (in its transaction), then
    // the run. The request is recorded once its job is queued, so a worker that starts at once may prune before it.
    const bySeq = left.map((r) => [r.seq, r.action] as const).sort((a, b) => a[0] - b[0]);
    expect(bySeq.map(([seq]) => seq)).toEqual([5, 6, 7, 8, 9]);
    expect(bySeq.slice(0, 2).map(([, action]) => action)).toEqual(["channel.save", "settings.update"]);
    expect(
      bySeq
        .slice(2, 4)
        .map(([, action]) => action)
        .sort(),
    ).toEqual(["audit.prune", "retention.request"]);
    expect(bySeq[4]![1]).toBe("retention.run");
    const prune = left.find((r) => r.action === "audit.prune")!;
    expect(prune.details).toEqual({ records: 4, anchor: run.details.removed.auditRecords.anchor });
    const verified = await app.request("/api/audit/verify", { key: bank.apiKey });
    expect(verified.body).toMatchObject({ ok: true, broken: null, anchor: { seq: 4 }, last_seq: 9 });
    expect(verified.body.anchor.hash).toBe(run.details.removed.auditRecords.anchor.sha256);

    const cli = runScript("src/cli/audit-verify.ts", ["--url", app.url, "--key", bank.apiKey], {});
    expect(await cli.exit()).toBe(0);
    expect(cli.stdout()).toContain("Verified from the retention anchor at seq 4");
    expect(cli.stdout()).toContain("OK: 5 records, chain intact up to seq 9.");

    // Still append-only beyond the anchor: a record it does not cover cannot be removed, nor an anchor changed.
    const sql = app.services.db.sql;
    await expect(sql.exec(`DELETE FROM audit_records WHERE tenant_id = '${bank.tenantId}' AND seq = 5`)).rejects.toThrow(
      /append-only/,
    );
    await expect(sql.exec(`UPDATE audit_anchors SET through_seq = 6 WHERE tenant_id = '${bank.tenantId}'`)).rejects.toThrow(
      /append-only/,
    );

    // An anchor slipped in by hand lets the trigger remove records, but no pruning record confirms it.
    const [sixth] = await sql.query<{ hash: string }>("SELECT hash FROM audit_records WHERE tenant_id = $1 AND seq = 6", [
      bank.tenantId,
    ]);
    await sql.query("INSERT INTO audit_anchors (id, tenant_id, through_seq, hash, pruned) VALUES ($1, $2, 6, $3, 2)", [
      newId("anc"),
      bank.tenantId,
      sixth!.hash,
    ]);
    await sql.query("DELETE FROM audit_records WHERE tenant_id = $1 AND seq <= 6", [bank.tenantId]);
    const tampered = await app.request("/api/audit/verify", { key: bank.apiKey });
    expect(tampered.body).toMatchObject({ ok: false, anchor: { seq: 6 }, broken: { seq: 6 } });
    expect(tampered.body.broken.reason).toMatch(/removed outside retention/);
  });
});
