import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { csvColumns } from "../../src/exports/formats.js";
import { addAgent } from "../helpers/agents.js";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { seedConversation } from "../helpers/seed.js";

// Issue 12, item 3: transcript export through the REST API, JSON and CSV, with the conversation list's filters.

let app: TestApp;
let bank: { tenantId: string; apiKey: string };
let handedOff: string;

const hostile = '=HYPERLINK("https://evil.example","Click"), then "quote" and a\nnew line';

beforeAll(async () => {
  app = await startTestApp();
  bank = await app.tenant("Export Bank");
  const source = await app.request("/api/knowledge/sources", {
    key: bank.apiKey,
    body: { type: "manual", title: "Cards FAQ", content: "To reset your card PIN, open the app, choose Cards, then Reset PIN." },
  });
  expect(source.status).toBe(201);
  // A conversation as it really happens: an AI answer from the knowledge base, a hand-off, an agent's reply.
  const chat = await app.request("/api/chat", { key: bank.apiKey, body: { message: "How do I reset my card PIN?" } });
  handedOff = chat.body.conversationId;
  await app.request("/api/chat", { key: bank.apiKey, body: { message: hostile, conversationId: handedOff } });
  const escalation = await app.request("/api/escalations", {
    key: bank.apiKey,
    body: { conversation_id: handedOff, note: "Customer is upset" },
  });
  expect(escalation.status).toBe(201);
  const agent = await addAgent(app, bank.apiKey, { name: "Sam Agent" });
  const reply = await app.request(`/api/conversations/${handedOff}/messages`, {
    key: agent.token,
    body: { content: "Sam here: I can help." },
  });
  expect(reply.status).toBe(201);
}, 120_000);
afterAll(() => app?.close());

async function exportOf(path: string, key: string | null = bank.apiKey) {
  const res = await fetch(`${app.url}${path}`, { headers: key ? { authorization: `Bearer ${key}` } : {} });
  // Decoded keeping a byte order mark, which Response.text() would drop.
  const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, text };
}

const csvRecords = (text: string) => parse(text, { bom: true, columns: true }) as Array<Record<string, string>>;

describe("one conversation's transcript", () => {
  it("as JSON: messages with intents and sources cited, the timeline and the hand-offs", async () => {
    const res = await exportOf(`/api/conversations/${handedOff}/export`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(res.headers.get("content-disposition")).toMatch(
      new RegExp(`^attachment; filename="transcript-${handedOff}-\\d{8}T\\d{6}Z\\.json"$`),
    );
    const [transcript] = JSON.parse(res.text);
    expect(transcript).toMatchObject({ id: handedOff, channel: "api", status: "assigned", customer: { phone: null } });
    const roles = transcript.messages.map((m: { role: string }) => m.role);
    // The AI disclosure the customer was shown is part of the record, between the first message and its answer.
    expect(roles.slice(0, 3)).toEqual(["customer", "system", "assistant"]);
    expect(transcript.messages[1].content).toContain("an AI and not a person");
    expect(roles).toContain("agent");
    expect(transcript.message_count).toBe(transcript.messages.length);
    const answer = transcript.messages[2];
    expect(answer.sources).toEqual([expect.objectContaining({ title: "Cards FAQ", source_id: expect.stringMatching(/^src_/) })]);
    expect(answer).toMatchObject({ agent_type: expect.any(String), tokens_used: expect.any(Number) });
    expect(transcript.messages[0].intent).toEqual(expect.any(String));
    expect(transcript.messages.find((m: { role: string }) => m.role === "agent")).toMatchObject({
      content: "Sam here: I can help.",
      agent: { id: expect.stringMatching(/^usr_/), name: "Sam Agent" },
    });
    expect(transcript.messages.map((m: { content: string }) => m.content)).toContain(hostile);
    expect(transcript.timeline.map((e: { to: string }) => e.to)).toEqual(["escalated", "assigned"]);
    expect(transcript.handoffs).toEqual([
      expect.objectContaining({ reason: "manual", status: "assigned", assignee: "Sam Agent", note: "Customer is upset" }),
    ]);
  });

  it("as CSV: a header row, one row per record in the order they happened, RFC 4180 quoting, no formulas", async () => {
    const res = await exportOf(`/api/conversations/${handedOff}/export?format=csv`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8; header=present");
    expect(res.text.startsWith(`\uFEFF${csvColumns.join(",")}\r\n`)).toBe(true);
    const rows = csvRecords(res.text);
    const json = JSON.parse((await exportOf(`/api/conversations/${handedOff}/export`)).text)[0];
    expect(rows).toHaveLength(json.messages.length + json.timeline.length + json.handoffs.length);
    const times = rows.map((r) => r.at);
    expect(times).toEqual([...times].sort());
    expect(rows.map((r) => r.record)).toEqual(expect.arrayContaining(["message", "status", "handoff"]));
    expect(rows.every((r) => r.conversation_id === handedOff)).toBe(true);
    // The customer's formula comes back as text: quoted (comma, quotes, line break) and prefixed with an apostrophe.
    expect(rows.find((r) => r.content?.includes("HYPERLINK"))?.content).toBe(`'${hostile}`);
    expect(res.text).toContain(`"'=HYPERLINK(""https://evil.example"",""Click""), then ""quote"" and a\nnew line"`);
    expect(rows.find((r) => r.record === "handoff")).toMatchObject({ reason: "manual", agent: "Sam Agent", priority: "normal" });
    expect(rows[1]).toMatchObject({ record: "message", actor: "system", content: expect.stringContaining("an AI") });
    expect(rows[2]).toMatchObject({ record: "message", actor: "assistant", sources: expect.stringContaining("Cards FAQ") });
  });

  it("answers 404 for an unknown conversation and 422 for an unknown format, as JSON", async () => {
    const missing = await exportOf("/api/conversations/conv_nope/export");
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.text)).toMatchObject({ code: "NOT_FOUND" });
    const format = await exportOf(`/api/conversations/${handedOff}/export?format=xml`);
    expect(format.status).toBe(422);
    expect(JSON.parse(format.text)).toMatchObject({ code: "VALIDATION", details: [expect.objectContaining({ path: "format" })] });
  });
});

describe("all conversations matching a filter", () => {
  let filtered: { tenantId: string; apiKey: string };
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    filtered = await app.tenant("Filter Bank");
    const day = (d: number) => new Date(Date.UTC(2026, 0, d, 12));
    ids.smsOld = await seedConversation(app.services, filtered.tenantId, {
      channel: "sms",
      status: "resolved",
      createdAt: day(2),
    });
    ids.smsNew = await seedConversation(app.services, filtered.tenantId, {
      channel: "sms",
      status: "resolved",
      createdAt: day(20),
    });
    ids.open = await seedConversation(app.services, filtered.tenantId, { channel: "sms", status: "open", createdAt: day(21) });
    ids.widget = await seedConversation(app.services, filtered.tenantId, {
      channel: "widget",
      status: "resolved",
      createdAt: day(22),
      customerPhone: null,
      messages: [{ role: "customer", content: "Is my mortgage application approved?" }],
    });
  });

  const exported = async (query: string, key = filtered.apiKey) => {
    const res = await exportOf(`/api/conversations/export?${query}`, key);
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    return (JSON.parse(res.text) as Array<{ id: string }>).map((c) => c.id);
  };

  it("exports every conversation, oldest first, with the list's filters: status, channel, dates, text", async () => {
    expect(await exported("")).toEqual([ids.smsOld, ids.smsNew, ids.open, ids.widget]);
    expect(await exported("status=resolved&channel=sms")).toEqual([ids.smsOld, ids.smsNew]);
    expect(await exported("from=2026-01-10T00:00:00Z&to=2026-01-21T23:59:59Z")).toEqual([ids.smsNew, ids.open]);
    expect(await exported("q=MORTGAGE")).toEqual([ids.widget]);
    expect(await exported("channel=voice")).toEqual([]);
  });

  it("exports the same conversations as CSV, a customer's phone formula-safe", async () => {
    const res = await exportOf("/api/conversations/export?format=csv&channel=sms", filtered.apiKey);
    const rows = csvRecords(res.text);
    expect([...new Set(rows.map((r) => r.conversation_id))]).toEqual([ids.smsOld, ids.smsNew, ids.open]);
    expect(rows).toHaveLength(6);
    expect(rows[0]!.customer_phone).toBe("'+15550001111");
  });

  it("refuses bad filters with 422 before writing anything", async () => {
    for (const query of ["from=yesterday", "status=lost", "from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z", "format=pdf"]) {
      const res = await exportOf(`/api/conversations/export?${query}`, filtered.apiKey);
      expect(res.status, query).toBe(422);
      expect(JSON.parse(res.text).code).toBe("VALIDATION");
    }
  });
});

describe("who may export", () => {
  it("lets admins and owners export; agents, viewers and strangers may not", async () => {
    expect((await exportOf("/api/conversations/export", await app.keyFor(bank.tenantId, "admin"))).status).toBe(200);
    for (const role of ["agent", "viewer"] as const) {
      const res = await exportOf("/api/conversations/export", await app.keyFor(bank.tenantId, role));
      expect(res.status).toBe(403);
      expect(JSON.parse(res.text).code).toBe("FORBIDDEN");
    }
    const agentSession = await addAgent(app, bank.apiKey);
    expect((await exportOf(`/api/conversations/${handedOff}/export`, agentSession.token)).status).toBe(403);
    expect((await exportOf("/api/conversations/export", null)).status).toBe(401);
  });

  it("exports only the caller's tenant: another tenant's conversations are absent, and 404 by id", async () => {
    const other = await app.tenant("Other Bank");
    expect(JSON.parse((await exportOf("/api/conversations/export", other.apiKey)).text)).toEqual([]);
    expect((await exportOf(`/api/conversations/${handedOff}/export?format=csv`, other.apiKey)).status).toBe(404);
  });
});
