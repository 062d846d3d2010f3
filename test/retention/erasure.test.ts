import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "../../src/db/ids.js";
import { EraseCustomerForTestDocument, HoldCustomerDocument } from "../generated.js";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { seedConversation } from "../helpers/seed.js";

let app: TestApp;
let bank: { tenantId: string; apiKey: string };

beforeAll(async () => {
  app = await startTestApp();
  bank = await app.tenant("Erasing Bank");
});
afterAll(() => app?.close());

const phone = "+15550001111";
const secret = "my PIN is 4321";

const erase = (body: unknown, key: string | null = bank.apiKey) => app.request("/api/erasures", { key, body });
const read = (id: string, key = bank.apiKey) => app.request(`/api/conversations/${id}`, { key });

const nothing = {
  conversations: 0,
  messages: 0,
  feedback: 0,
  surveys: 0,
  escalations: 0,
  timeline_events: 0,
  webhook_events: 0,
  jobs: 0,
};

/**
 * What the service kept of the customer outside the transcripts, as its pipeline leaves it: an event notification
 * that carried a message of `erased`, and the finished inbound records of both conversations (the provider's payloads).
 */
async function seedDeliveredCopies(erased: string, held: string) {
  const sql = app.services.db.sql;
  await sql.query(`INSERT INTO webhook_events (id, tenant_id, type, payload) VALUES ($1, $2, 'message.received', $3::jsonb)`, [
    newId("wev"),
    bank.tenantId,
    JSON.stringify({ data: { message: { conversation_id: erased, content: secret } } }),
  ]);
  await sql.query(
    "UPDATE messages SET provider_message_id = 'chatapp:held:1' WHERE id = (SELECT min(id) FROM messages WHERE conversation_id = $1)",
    [held],
  );
  const inbound = [
    { providerMessageId: "sms:erased:1", event: { type: "sms", customer: { id: phone, phone }, text: secret } },
    { providerMessageId: "chatapp:held:1", event: { type: "chatapp", customer: { id: "15550001111", phone }, text: "hello" } },
  ];
  for (const payload of inbound) {
    await sql.query(
      `INSERT INTO jobs (id, tenant_id, queue, payload, status, updated_at) VALUES ($1, $2, 'channel.inbound', $3::jsonb, 'completed', now())`,
      [newId("job"), bank.tenantId, JSON.stringify(payload)],
    );
  }
}

describe("erasure of a customer (data-subject request)", () => {
  it("erases the customer on every channel, keeps what a legal hold covers and says why, and audits counts only", async () => {
    const transcript = [
      { role: "customer", content: secret },
      { role: "assistant", content: "Please never share your PIN." },
    ];
    const sms = await seedConversation(app.services, bank.tenantId, {
      channel: "sms",
      customerPhone: phone,
      customerId: phone,
      messages: transcript,
    });
    const chatapp = await seedConversation(app.services, bank.tenantId, {
      channel: "chatapp",
      customerPhone: phone,
      customerId: "15550001111",
    });
    const widget = await seedConversation(app.services, bank.tenantId, {
      channel: "widget",
      customerPhone: null,
      customerId: "visitor-abc",
    });
    const someoneElse = await seedConversation(app.services, bank.tenantId, { channel: "sms", customerPhone: "+15550002222" });
    const other = await app.tenant("Bystander Bank");
    const theirs = await seedConversation(app.services, other.tenantId, { channel: "sms", customerPhone: phone });

    const messages = await app.request(`/api/conversations/${sms}/messages`, { key: bank.apiKey });
    const reply = messages.body.messages.find((m: { role: string }) => m.role === "assistant");
    expect((await app.request(`/api/messages/${reply.id}/feedback`, { key: bank.apiKey, body: { rating: "up" } })).status).toBe(
      200,
    );

    await seedDeliveredCopies(sms, chatapp);

    const hold = await app.request("/api/legal-holds", {
      key: bank.apiKey,
      body: { conversation_id: chatapp, reason: "Fraud investigation 2026-117" },
    });
    expect(hold.status, JSON.stringify(hold.body)).toBe(201);
    expect(hold.body).toMatchObject({
      conversation_id: chatapp,
      customer: null,
      active: true,
      placed_by_label: bank.apiKey.slice(0, 12),
    });

    const first = await erase({ phone: "+1 (555) 000-1111" });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.erased).toEqual({ ...nothing, conversations: 1, messages: 2, feedback: 1, webhook_events: 1, jobs: 1 });
    expect(first.body.held_back).toEqual([
      { conversation_id: chatapp, hold_id: hold.body.id, reason: "Fraud investigation 2026-117" },
    ]);
    expect(first.body.subject).toMatch(/^subj_[0-9a-f]{12}$/);

    expect((await read(sms)).status).toBe(404);
    expect((await read(chatapp)).body).toMatchObject({ customer_phone: phone, message_count: 2 });
    expect((await read(someoneElse)).status).toBe(200);
    expect((await read(theirs, other.apiKey)).status).toBe(200);
    // The held conversation's inbound record stays with it; the erased one's is gone.
    const inbound = await app.services.db.sql.query<{ provider: string }>(
      "SELECT payload ->> 'providerMessageId' AS provider FROM jobs WHERE tenant_id = $1 AND queue = 'channel.inbound'",
      [bank.tenantId],
    );
    expect(inbound.map((j) => j.provider)).toEqual(["chatapp:held:1"]);

    const byChannel = await app.graphql(
      EraseCustomerForTestDocument,
      { customer: { channel: "widget", customerId: "visitor-abc" } },
      bank.apiKey,
    );
    expect(byChannel.data?.eraseCustomer.erased).toMatchObject({ conversations: 1, messages: 2 });
    expect((await read(widget)).status).toBe(404);

    const audit = await app.request("/api/audit?limit=100&action=customer.erase", { key: bank.apiKey });
    expect(audit.body.records).toHaveLength(2);
    const [widgetRecord, phoneRecord] = audit.body.records;
    expect(phoneRecord).toMatchObject({
      target_type: "customer",
      target_id: first.body.subject,
      before: null,
      after: null,
      details: {
        erased: { conversations: 1, messages: 2, feedback: 1 },
        heldBack: [{ conversationId: chatapp, holdId: hold.body.id }],
      },
    });
    expect(widgetRecord.target_id).toBe(byChannel.data?.eraseCustomer.subject);
    const recorded = JSON.stringify(audit.body.records);
    for (const text of ["5550001111", "visitor-abc", secret, "Fraud investigation"]) expect(recorded).not.toContain(text);
  });

  it("is idempotent: asked again it erases nothing more, and once the hold is released it erases the rest", async () => {
    const again = await erase({ phone });
    expect(again.body.erased).toEqual(nothing);
    expect(again.body.held_back).toHaveLength(1);
    const [held] = again.body.held_back;
    const subject = (await erase({ phone: "15550001111" })).body.subject;
    expect(subject).toBe(again.body.subject);

    const released = await app.request(`/api/legal-holds/${held.hold_id}/release`, {
      key: bank.apiKey,
      body: { reason: "Investigation closed" },
    });
    expect(released.status).toBe(200);
    expect(released.body).toMatchObject({ active: false, release_reason: "Investigation closed" });
    expect(released.body.released_at).toEqual(expect.any(String));
    const twice = await app.request(`/api/legal-holds/${held.hold_id}/release`, { key: bank.apiKey, body: { reason: "again" } });
    expect(twice.status).toBe(422);
    const listed = await app.request("/api/legal-holds?active=false", { key: bank.apiKey });
    expect(listed.body.holds.map((h: { id: string }) => h.id)).toContain(held.hold_id);

    const rest = await erase({ phone });
    expect(rest.body.erased).toMatchObject({ conversations: 1, messages: 2 });
    expect(rest.body.held_back).toEqual([]);
    expect((await read(held.conversation_id)).status).toBe(404);
  });

  it("keeps a customer held by phone on every channel, whichever identity the request names", async () => {
    const held = "+15550003333";
    const conversation = await seedConversation(app.services, bank.tenantId, {
      channel: "sms",
      customerPhone: held,
      customerId: held,
    });
    const hold = await app.graphql(
      HoldCustomerDocument,
      { customer: { phone: held }, reason: "Litigation hold L-88" },
      bank.apiKey,
    );
    expect(hold.data?.placeLegalHold).toMatchObject({ customer: { phone: held, channel: null }, active: true });
    const res = await app.graphql(EraseCustomerForTestDocument, { customer: { channel: "sms", customerId: held } }, bank.apiKey);
    expect(res.data?.eraseCustomer.erased.conversations).toBe(0);
    expect(res.data?.eraseCustomer.heldBack).toEqual([
      { conversationId: conversation, holdId: hold.data?.placeLegalHold.id, reason: "Litigation hold L-88" },
    ]);
    const placed = await app.request(`/api/audit?limit=100&action=legalHold.place&target_id=${hold.data?.placeLegalHold.id}`, {
      key: bank.apiKey,
    });
    expect(placed.body.records[0].after).toMatchObject({
      reason: "Litigation hold L-88",
      customer: expect.stringMatching(/^subj_/),
    });
    expect(JSON.stringify(placed.body.records)).not.toContain("5550003333");
  });

  it("keeps tenants apart: another tenant erases none of this one's data and cannot see or release its holds", async () => {
    const other = await app.tenant("Nosy Bank");
    const shared = "+15550004444";
    const mine = await seedConversation(app.services, bank.tenantId, { channel: "sms", customerPhone: shared });
    const hold = await app.request("/api/legal-holds", {
      key: bank.apiKey,
      body: { phone: shared, reason: "Regulator request" },
    });
    expect(hold.status).toBe(201);
    expect((await erase({ phone: shared }, other.apiKey)).body.erased).toEqual(nothing);
    expect((await read(mine)).status).toBe(200);
    expect((await app.request("/api/legal-holds", { key: other.apiKey })).body.holds).toEqual([]);
    const release = await app.request(`/api/legal-holds/${hold.body.id}/release`, {
      key: other.apiKey,
      body: { reason: "mine now" },
    });
    expect(release.status).toBe(404);
    const holdTheirs = await app.request("/api/legal-holds", {
      key: other.apiKey,
      body: { conversation_id: mine, reason: "not theirs" },
    });
    expect(holdTheirs.status).toBe(404);
  });

  it("answers bad requests with 4xx JSON and the spec's codes", async () => {
    const agent = await app.keyFor(bank.tenantId, "agent");
    const cases: Array<[unknown, string | null, number, string]> = [
      [{}, bank.apiKey, 422, "VALIDATION"],
      [{ phone: "not a number" }, bank.apiKey, 422, "VALIDATION"],
      [{ channel: "fax", customer_id: "x" }, bank.apiKey, 422, "VALIDATION"],
      [{ channel: "sms" }, bank.apiKey, 422, "VALIDATION"],
      [{ phone, channel: "sms", customer_id: "x" }, bank.apiKey, 422, "VALIDATION"],
      [[phone], bank.apiKey, 422, "VALIDATION"],
      [{ phone: 15550001111 }, bank.apiKey, 422, "VALIDATION"],
      [{ phone }, agent, 403, "FORBIDDEN"],
      [{ phone }, null, 401, "AUTH_INVALID"],
    ];
    for (const [body, key, status, code] of cases) {
      const res = await erase(body, key);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.code, JSON.stringify(body)).toBe(code);
      expect(res.body.error).toEqual(expect.any(String));
    }
    const holds: Array<[unknown, number]> = [
      [{ conversation_id: "conv_missing", reason: "a reason" }, 404],
      [{ phone, reason: "" }, 422],
      [{ phone }, 422],
      [{ reason: "covers nothing" }, 422],
      [{ phone, conversation_id: "conv_x", reason: "both at once" }, 422],
    ];
    for (const [body, status] of holds) {
      const res = await app.request("/api/legal-holds", { key: bank.apiKey, body });
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.code).toBe(status === 404 ? "NOT_FOUND" : "VALIDATION");
    }
    expect(
      (await app.request("/api/legal-holds/hold_missing/release", { key: bank.apiKey, body: { reason: "why" } })).status,
    ).toBe(404);
  });
});
