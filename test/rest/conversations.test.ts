import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { seedConversation } from "../helpers/seed.js";

let app: TestApp;
let tenant: { tenantId: string; apiKey: string };

beforeAll(async () => {
  app = await startTestApp();
  tenant = await app.tenant("Conversations Bank");
});
afterAll(() => app?.close());

describe("GET /api/conversations", () => {
  it("lists conversations with exactly the spec's list item fields, most recently updated first", async () => {
    const first = await seedConversation(app.services, tenant.tenantId, { channel: "sms", customerPhone: "+254700000001" });
    const second = await seedConversation(app.services, tenant.tenantId, { channel: "chatapp", customerPhone: "+254700000002" });
    const res = await app.request("/api/conversations", { key: tenant.apiKey });
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(2);
    expect(res.body.page).toBe(1);
    expect(res.body.limit).toBe(20);
    expect(res.body.conversations.map((c: { id: string }) => c.id)).toEqual([second, first]);
    const item = res.body.conversations[1];
    expect(Object.keys(item).sort()).toEqual(
      ["channel", "created_at", "customer_phone", "id", "message_count", "status", "updated_at"].sort(),
    );
    expect(item).toMatchObject({ id: first, channel: "sms", status: "open", customer_phone: "+254700000001", message_count: 2 });
    expect(item.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it("pages with page and limit", async () => {
    for (let i = 0; i < 3; i++) await seedConversation(app.services, tenant.tenantId);
    const page1 = await app.request("/api/conversations?limit=2&page=1", { key: tenant.apiKey });
    const page3 = await app.request("/api/conversations?limit=2&page=3", { key: tenant.apiKey });
    expect(page1.body.conversations).toHaveLength(2);
    expect(page1.body.total).toBe(5);
    expect(page3.body.conversations).toHaveLength(1);
    expect(page3.body).toMatchObject({ page: 3, limit: 2, total: 5 });
  });

  it("filters by status, channel, date range and text", async () => {
    const other = await app.tenant("Filter Bank");
    const old = await seedConversation(app.services, other.tenantId, { createdAt: new Date("2025-01-10T10:00:00Z") });
    const escalated = await seedConversation(app.services, other.tenantId, {
      status: "escalated",
      channel: "widget",
      customerPhone: null,
    });
    const lost = await seedConversation(app.services, other.tenantId, {
      messages: [{ role: "customer", content: "I lost my Visa card yesterday" }],
      customerPhone: "+447700900123",
    });
    const get = async (query: string) =>
      (await app.request(`/api/conversations?${query}`, { key: other.apiKey })).body.conversations.map(
        (c: { id: string }) => c.id,
      );
    expect(await get("status=escalated")).toEqual([escalated]);
    expect(await get("channel=widget")).toEqual([escalated]);
    expect(await get("to=2025-02-01T00:00:00Z")).toEqual([old]);
    expect((await get("from=2025-02-01T00:00:00Z")).sort()).toEqual([escalated, lost].sort());
    expect(await get("q=visa")).toEqual([lost]);
    expect(await get("q=%2B447700")).toEqual([lost]);
    expect(await get("q=447700")).toEqual([lost]);
  });

  it.each([
    ["limit=101", "limit"],
    ["limit=0", "limit"],
    ["page=0", "page"],
    ["page=abc", "page"],
    ["status=sleeping", "status"],
    ["channel=fax", "channel"],
    ["from=yesterday", "from"],
    ["from=2025-03-01T00:00:00Z&to=2025-02-01T00:00:00Z", "from"],
  ])("answers 422 VALIDATION for %s", async (query, field) => {
    const res = await app.request(`/api/conversations?${query}`, { key: tenant.apiKey });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("VALIDATION");
    expect(res.body.error).toContain(field);
  });
});

describe("GET /api/conversations/:id and /messages", () => {
  it("returns one conversation and its messages oldest first, paged", async () => {
    const id = await seedConversation(app.services, tenant.tenantId, {
      messages: [
        { role: "customer", content: "one" },
        { role: "assistant", content: "two" },
        { role: "customer", content: "three" },
      ],
    });
    const one = await app.request(`/api/conversations/${id}`, { key: tenant.apiKey });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id, message_count: 3 });

    const messages = await app.request(`/api/conversations/${id}/messages?limit=2`, { key: tenant.apiKey });
    expect(messages.status).toBe(200);
    expect(messages.body.total).toBe(3);
    expect(messages.body.messages.map((m: { content: string }) => m.content)).toEqual(["one", "two"]);
    expect(messages.body.messages[0]).toMatchObject({ conversationId: id, role: "customer", delivery: null, metadata: {} });
    const rest = await app.request(`/api/conversations/${id}/messages?limit=2&page=2`, { key: tenant.apiKey });
    expect(rest.body.messages.map((m: { content: string }) => m.content)).toEqual(["three"]);
  });

  it("answers 404 NOT_FOUND for an unknown id", async () => {
    for (const path of ["/api/conversations/conv_nope", "/api/conversations/conv_nope/messages"]) {
      const res = await app.request(path, { key: tenant.apiKey });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "Conversation not found", code: "NOT_FOUND" });
    }
  });
});
