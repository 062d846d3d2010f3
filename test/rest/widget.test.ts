import { createHmac, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "../../src/db/ids.js";
import { deliverReply } from "../../src/pipeline/deliver.js";
import { CreateWidgetTokenForTestDocument } from "../generated.js";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { conversationMessages } from "../helpers/channels.js";
import { captureLogs } from "../helpers/logs.js";
import { redisSubscribed } from "../helpers/realtime.js";
import { readEvents } from "../helpers/sse.js";

// The widget's API (issue 6): tokens, init, message (JSON and SSE), the live feed, CORS and the allow-list.
let app: TestApp;
let bank: { tenantId: string; apiKey: string };
let channelId: string;
let token: string;
const logs = captureLogs();

const site = "https://www.widget-bank.example";
const faq = `Cards

To reset your card PIN, open the mobile app, choose Cards, then Reset PIN. The new PIN works at once.

Branches

Our branches are open Monday to Friday from 9am to 5pm, and on Saturday from 9am to 12.30pm.`;

/** A token made as README's do-it-yourself function makes it, with nothing of the service's code. */
function tokenByHand(tenantId: string, channel: string, secret: string): string {
  const nonce = randomBytes(16).toString("base64url");
  const payload = `${tenantId}:${channel}:${nonce}`;
  const signature = createHmac("sha256", secret).update(payload).digest("base64url");
  return Buffer.from(`${payload}:${signature}`).toString("base64url");
}

function widgetHeaders(options: { token?: string; visitor?: string; origin?: string | null } = {}): Record<string, string> {
  const headers: Record<string, string> = { "x-widget-token": options.token ?? token };
  if (options.visitor) headers["x-widget-visitor"] = options.visitor;
  if (options.origin !== null) headers.origin = options.origin ?? site;
  return headers;
}

const init = (options: Parameters<typeof widgetHeaders>[0] = {}) =>
  app.request("/api/v1/widget/init", { method: "POST", body: {}, headers: widgetHeaders(options) });

const send = (visitor: string, body: unknown, options: Parameters<typeof widgetHeaders>[0] = {}) =>
  app.request("/api/v1/widget/message", { body, headers: widgetHeaders({ visitor, ...options }) });

async function newToken(key = bank.apiKey, body: unknown = {}) {
  const res = await app.request("/api/widget/tokens", { key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.token as string;
}

beforeAll(async () => {
  app = await startTestApp({ PUBLIC_BASE_URL: "https://parley.widget-bank.example" }, { logDestination: logs.destination });
  bank = await app.tenant("Widget Bank");
  const added = await app.request("/api/knowledge/sources", {
    key: bank.apiKey,
    body: { type: "manual", title: "Help centre", content: faq },
  });
  expect(added.status).toBe(201);
  const res = await app.request("/api/tenant/channels/widget", {
    method: "PUT",
    key: bank.apiKey,
    body: { settings: { allowed_origins: [`${site}/`], title: "Widget Bank", greeting: "Hello!", primary_color: "#0d2a6b" } },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  channelId = res.body.id;
  token = await newToken();
});
afterAll(() => app?.close());

describe("the widget channel", () => {
  it("is configured like the others, with a secret generated when none is given, masked on every read", async () => {
    const res = await app.request("/api/tenant/channels/widget", { key: bank.apiKey });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      type: "widget",
      webhook_url: null,
      settings: { allowed_origins: [site], title: "Widget Bank" },
    });
    expect(res.body.credentials.secret).toMatch(/^••••.{4}$/);
    const row = await app.services.db.prisma.channel.findUniqueOrThrow({ where: { id: channelId } });
    expect(row.credentials).toMatch(/^v1:/);
  });

  it("answers 422 with the offending fields for an origin with a path, a bad position, colour or short secret", async () => {
    const res = await app.request(`/api/tenant/channels/${channelId}`, {
      method: "PUT",
      key: bank.apiKey,
      body: {
        credentials: { secret: "too-short" },
        settings: { allowed_origins: ["https://bank.example/help"], position: "middle", primary_color: "blue" },
      },
    });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("VALIDATION");
    expect(res.body.details.map((d: { path: string }) => d.path).sort()).toEqual([
      "settings.allowed_origins.0",
      "settings.position",
      "settings.primary_color",
    ]);
    const secret = await app.request(`/api/tenant/channels/${channelId}`, {
      method: "PUT",
      key: bank.apiKey,
      body: { credentials: { secret: "too-short" } },
    });
    expect(secret.body.details).toEqual([{ path: "credentials.secret", message: expect.stringContaining("32") }]);
  });
});

describe("widget tokens", () => {
  it("are made by POST /api/widget/tokens with the script tag to paste", async () => {
    const res = await app.request("/api/widget/tokens", { key: bank.apiKey, body: { channel: channelId } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ channel_id: channelId, tenant_id: bank.tenantId });
    const parts = Buffer.from(res.body.token, "base64url").toString().split(":");
    expect(parts).toHaveLength(4);
    expect(parts.slice(0, 2)).toEqual([bank.tenantId, channelId]);
    expect(res.body.embed_snippet).toBe(
      `<script src="https://parley.widget-bank.example/widget.js" data-key="${res.body.token}" data-position="bottom-right" defer></script>`,
    );
  });

  it("are made by the createWidgetToken mutation, for the configure permission only", async () => {
    const made = await app.graphql(CreateWidgetTokenForTestDocument, {}, bank.apiKey);
    expect(made.data?.createWidgetToken.channelId).toBe(channelId);
    expect((await init({ token: made.data!.createWidgetToken.token })).status).toBe(200);
    const viewer = await app.keyFor(bank.tenantId, "viewer");
    expect((await app.graphql(CreateWidgetTokenForTestDocument, {}, viewer)).errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
    expect((await app.request("/api/widget/tokens", { key: viewer, body: {} })).status).toBe(403);
    expect((await app.request("/api/widget/tokens", { body: {} })).body.code).toBe("AUTH_INVALID");
  });

  it("answers 404 for another tenant's channel, and 422 for a channel that is not a widget", async () => {
    const other = await app.tenant("Other Widget Bank");
    const res = await app.request("/api/widget/tokens", { key: other.apiKey, body: { channel: channelId } });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe("NOT_FOUND");
    const chatapp = await app.request("/api/tenant/channels/chatapp", {
      method: "PUT",
      key: bank.apiKey,
      body: {
        credentials: {
          phone_number_id: "230000000000001",
          access_token: "EAAG-widget-test-token",
          verify_token: "widget-verify",
          app_secret: "widget-app-secret",
        },
      },
    });
    expect(chatapp.status, JSON.stringify(chatapp.body)).toBe(201);
    const notWidget = await app.request("/api/widget/tokens", { key: bank.apiKey, body: { channel: chatapp.body.id } });
    expect(notWidget.status).toBe(422);
  });

  it("can be made by the tenant's own server with the secret it chose", async () => {
    const secret = randomBytes(32).toString("base64url");
    const other = await app.tenant("Own Server Bank");
    const saved = await app.request("/api/tenant/channels/widget", {
      method: "PUT",
      key: other.apiKey,
      body: { credentials: { secret }, settings: { allowed_origins: [site] } },
    });
    expect(saved.status).toBe(201);
    const res = await init({ token: tokenByHand(other.tenantId, saved.body.id, secret) });
    expect(res.status).toBe(200);
    expect(res.body.config.title).toBe("Chat with us");
  });
});

describe("POST /api/v1/widget/init", () => {
  it("gives a new visitor an id and the widget's configuration, with CORS for the allowed origin", async () => {
    const res = await init();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      visitor_id: expect.stringMatching(/^vis_[A-Za-z0-9_-]{32}$/),
      conversation: null,
      config: {
        title: "Widget Bank",
        greeting: "Hello!",
        position: "bottom-right",
        streaming: true,
        colors: { primary: "#0d2a6b", background: "#ffffff", text: "#1d2330" },
        disclosure:
          "You are chatting with Widget Bank's virtual assistant, an AI and not a person. You can ask for a person at any time.",
      },
      messages: [],
    });
    expect(res.headers.get("access-control-allow-origin")).toBe(site);
    expect(res.headers.get("access-control-expose-headers")).toContain("Retry-After");
    expect(res.headers.get("ratelimit-limit")).toBe("120");
  });

  it.each([
    ["no token", ""],
    ["not a token", "hello"],
    ["a tampered signature", "tampered"],
    ["a token naming another channel", "swapped"],
  ])("answers 401 AUTH_INVALID for %s", async (_name, kind) => {
    const [tenantId, channel, nonce, signature] = Buffer.from(token, "base64url").toString().split(":") as string[];
    const variants: Record<string, string> = {
      "": "",
      hello: "hello",
      tampered: Buffer.from(`${tenantId}:${channel}:${nonce}:${signature!.slice(0, -2)}AA`).toString("base64url"),
      swapped: Buffer.from(`${tenantId}:chn_0000000000000000000000000:${nonce}:${signature}`).toString("base64url"),
    };
    const res = await init({ token: variants[kind] });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "Invalid or revoked widget token", code: "AUTH_INVALID" });
  });

  it("refuses a token whose last character was changed, even where base64url would decode it the same", async () => {
    const last = token.at(-1)!;
    const res = await init({ token: `${token.slice(0, -1)}${last === "A" ? "B" : "A"}` });
    expect(res.status).toBe(401);
  });

  it("answers 403 FORBIDDEN, without CORS, for a page outside the allow-list", async () => {
    const res = await init({ origin: "https://evil.example" });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "This site is not on the widget's list of allowed origins", code: "FORBIDDEN" });
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
    expect((await init({ origin: "null" })).status).toBe(403);
  });

  it("lets a caller without an Origin through (a server, not a page)", async () => {
    const res = await init({ origin: null });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("answers every page's CORS preflight the same, so that it tells nothing of any tenant's allow-list", async () => {
    const preflight = (origin: string) =>
      fetch(`${app.url}/api/v1/widget/message`, {
        method: "OPTIONS",
        headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "x-widget-token" },
      });
    const corsHeaders = (res: Response) =>
      [...res.headers.entries()].filter(([name]) => name.startsWith("access-control-") && name !== "access-control-allow-origin");
    const listed = await preflight(site);
    expect(listed.status).toBe(204);
    expect(listed.headers.get("access-control-allow-origin")).toBe(site);
    expect(listed.headers.get("access-control-allow-headers")).toContain("x-widget-token");
    expect(listed.headers.get("access-control-allow-methods")).toContain("POST");
    const unlisted = await preflight("https://evil.example");
    expect(unlisted.status).toBe(listed.status);
    expect(corsHeaders(unlisted)).toEqual(corsHeaders(listed));
    // What decides is the request itself, checked against its own channel's list.
    const refused = await init({ origin: "https://evil.example" });
    expect(refused.status).toBe(403);
    expect(refused.headers.get("access-control-allow-origin")).toBeNull();
    expect((await preflight("null")).status).toBe(403);
  });

  it("answers a bad token's 401 alike to every page, listed anywhere or not", async () => {
    const listed = await init({ token: "hello" });
    const unlisted = await init({ token: "hello", origin: "https://evil.example" });
    expect([listed.status, unlisted.status]).toEqual([401, 401]);
    expect(listed.headers.get("access-control-allow-origin")).toBe(site);
    expect(unlisted.headers.get("access-control-allow-origin")).toBe("https://evil.example");
  });

  it("gives another tenant's token no CORS on a page only the first tenant lists", async () => {
    const other = await app.tenant("Other Widget Bank");
    await app.request("/api/tenant/channels/widget", {
      method: "PUT",
      key: other.apiKey,
      body: { settings: { allowed_origins: ["https://www.other-bank.example"] } },
    });
    const res = await init({ token: await newToken(other.apiKey) });
    expect(res.status).toBe(403);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("POST /api/v1/widget/message", () => {
  let visitor: string;
  let conversationId: string;

  beforeAll(async () => {
    visitor = (await init()).body.visitor_id;
  });

  it("answers from the knowledge base as the spec's Chat reply, in the visitor's widget conversation", async () => {
    const res = await send(visitor, { message: "How do I reset my card PIN?" });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["conversationId", "handledBy", "messageId", "metadata", "response"]);
    expect(res.body.handledBy).toBe("ai");
    expect(res.body.response).toContain("Reset PIN");
    expect(res.body.metadata.sources[0].title).toBe("Help centre");
    expect(res.headers.get("access-control-allow-origin")).toBe(site);
    conversationId = res.body.conversationId;
    const conversation = await app.request(`/api/conversations/${conversationId}`, { key: bank.apiKey });
    expect(conversation.body).toMatchObject({ channel: "widget", status: "open", customer_phone: null });
  });

  it("streams the reply with the events of /api/chat", async () => {
    const res = await fetch(`${app.url}/api/v1/widget/message`, {
      method: "POST",
      headers: { ...widgetHeaders({ visitor }), "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ message: "When are your branches open?" }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const events = await readEvents(res);
    expect(events[0]!.event).toBe("meta");
    expect(JSON.parse(events[0]!.data).conversationId).toBe(conversationId);
    const deltas = events.filter((e) => e.event === "delta").map((e) => JSON.parse(e.data).text as string);
    expect(deltas.length).toBeGreaterThan(1);
    expect(events.at(-1)!.event).toBe("done");
    const reply = JSON.parse(events.at(-1)!.data);
    expect(deltas.join("")).toBe(reply.response);
    expect(reply.response).toContain("Monday to Friday");
  });

  it("resumes the conversation on the next init, with its messages oldest first", async () => {
    const res = await init({ visitor });
    expect(res.body.visitor_id).toBe(visitor);
    expect(res.body.conversation).toEqual({ id: conversationId, status: "open" });
    expect(res.body.messages.map((m: { role: string }) => m.role)).toEqual([
      "customer",
      "system",
      "assistant",
      "customer",
      "assistant",
    ]);
    expect(res.body.messages[0]).toEqual({
      id: expect.stringMatching(/^msg_/),
      role: "customer",
      content: "How do I reset my card PIN?",
      kind: null,
      suggestions: [],
      created_at: expect.any(String),
    });
    expect(res.body.messages[1]).toMatchObject({ kind: "disclosure", content: res.body.config.disclosure });
    expect((await init()).body.conversation).toBeNull();
  });

  it("answers 422 for an empty or overlong message, and without a visitor id", async () => {
    expect((await send(visitor, { message: "  " })).body.code).toBe("VALIDATION");
    expect((await send(visitor, { message: "x".repeat(4001) })).status).toBe(422);
    const anonymous = await app.request("/api/v1/widget/message", { body: { message: "hi" }, headers: widgetHeaders() });
    expect(anonymous.status).toBe(422);
    expect(anonymous.body.details[0].path).toBe("X-Widget-Visitor");
  });

  it("shows the visitor an agent's reply live, once a human has the conversation", async () => {
    const escalated = await send(visitor, { message: "I want to talk to a human agent please" });
    expect(escalated.body.metadata.agentType).toBe("handoff");
    const feed = await fetch(`${app.url}/api/v1/widget/events?conversation_id=${conversationId}`, {
      headers: widgetHeaders({ visitor }),
    });
    expect(feed.status).toBe(200);
    expect(feed.headers.get("access-control-allow-origin")).toBe(site);
    await redisSubscribed(app, `conversation:message:${conversationId}`);
    // While the visitor waits, the AI does not answer: the reply says the team has the message, once per wait.
    const waiting = await send(visitor, { message: "Are you there?" });
    expect(waiting.body).toMatchObject({
      handledBy: "team",
      response: "Your message is with our team; an agent will answer here.",
      messageId: expect.stringMatching(/^msg_/),
    });
    const agentReply = newId("msg");
    await deliverReply(app.services, {
      id: agentReply,
      tenantId: bank.tenantId,
      conversationId,
      channel: "widget",
      role: "agent",
      content: "Hi, this is Sam from the cards team.",
      metadata: {},
    });
    const events = await readEvents(feed, (seen) => seen.some((e) => e.data.includes(agentReply)));
    const messages = events.filter((e) => e.event === "message").map((e) => JSON.parse(e.data));
    // The feed starts with the replies so far (the hand-off notice among them), then the live ones.
    expect(messages.at(-1)).toEqual({
      id: agentReply,
      role: "agent",
      content: "Hi, this is Sam from the cards team.",
      kind: null,
      suggestions: [],
      created_at: expect.any(String),
    });
    expect(messages.some((m) => m.content.includes("member of our team"))).toBe(true);
    expect(messages.map((m) => m.id)).toContain(waiting.body.messageId);
    expect(messages.every((m) => m.role !== "customer")).toBe(true);
    const stored = await conversationMessages(app, bank.apiKey, conversationId);
    expect(stored.at(-1)).toMatchObject({ role: "agent", delivery: null });
  });

  it("answers 404 for the feed of another visitor's conversation", async () => {
    const stranger = (await init()).body.visitor_id;
    const res = await app.request(`/api/v1/widget/events?conversation_id=${conversationId}`, {
      headers: widgetHeaders({ visitor: stranger }),
    });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe("NOT_FOUND");
  });
});

describe("revocation and limits", () => {
  it("revokes every token when the secret is rotated, and refuses tokens of a disabled channel", async () => {
    const before = await newToken();
    expect((await init({ token: before })).status).toBe(200);
    const rotated = await app.request(`/api/tenant/channels/${channelId}`, {
      method: "PUT",
      key: bank.apiKey,
      body: { credentials: { secret: null } },
    });
    expect(rotated.status).toBe(200);
    expect((await init({ token: before })).status).toBe(401);
    const after = await newToken();
    expect((await init({ token: after })).status).toBe(200);
    await app.request(`/api/tenant/channels/${channelId}`, { method: "PUT", key: bank.apiKey, body: { enabled: false } });
    expect((await init({ token: after })).status).toBe(401);
    await app.request(`/api/tenant/channels/${channelId}`, { method: "PUT", key: bank.apiKey, body: { enabled: true } });
    token = after;
  });

  it("counts requests per token and client IP, with the tenant's limit", async () => {
    const limited = await app.tenant("Busy Widget Bank");
    await app.request("/api/tenant/channels/widget", {
      method: "PUT",
      key: limited.apiKey,
      body: { settings: { allowed_origins: [site] } },
    });
    const [first, second] = [await newToken(limited.apiKey), await newToken(limited.apiKey)];
    await app.services.db.prisma.tenant.update({ where: { id: limited.tenantId }, data: { settings: { rateLimitMax: 2 } } });
    // Written behind the API's back: announced as the API announces its changes (instances cache settings).
    app.services.tenants.changed(limited.tenantId);
    expect((await init({ token: first })).status).toBe(200);
    expect((await init({ token: first })).status).toBe(200);
    const refused = await init({ token: first });
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe("RATE_LIMIT");
    expect(refused.body.error).toMatch(/retry in \d+ seconds/);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.headers.get("access-control-allow-origin")).toBe(site);
    expect((await init({ token: second })).status).toBe(200);
  });

  it("never logs a token or a secret", () => {
    const text = logs.text();
    expect(text).not.toContain(token);
    expect(text).not.toContain("x-widget-token");
  });
});
