import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handoffNotice } from "../../src/conversations/escalate.js";
import { newId } from "../../src/db/ids.js";
import { UpdateTenantDocument } from "../generated.js";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { redisSubscribed } from "../helpers/realtime.js";
import { readEvents } from "../helpers/sse.js";

let app: TestApp;
let bank: { tenantId: string; apiKey: string };

const faq = `Cards

To reset your card PIN, open the mobile app, choose Cards, then Reset PIN. The new PIN works at once.

If your card is lost or stolen, freeze it in the app and call 0800 123 456 at any time.

Branches

Our branches are open Monday to Friday from 9am to 5pm, and on Saturday from 9am to 12.30pm.`;

/** The next event on the agent inbox feed of a tenant, subscribed before anything is published. */
async function nextInboxMessage(tenantId: string) {
  const iterator = app.services.realtime.pubsub.subscribe("inbox:message", tenantId)[Symbol.asyncIterator]();
  const next = iterator.next();
  await redisSubscribed(app, `inbox:message:${tenantId}`);
  return { next, stop: () => void iterator.return?.() };
}

beforeAll(async () => {
  app = await startTestApp();
  bank = await app.tenant("Chat Bank");
  const added = await app.request("/api/knowledge/sources", {
    key: bank.apiKey,
    body: { type: "manual", title: "Help centre", content: faq },
  });
  expect(added.status).toBe(201);
});
afterAll(() => app?.close());

describe("POST /api/chat", () => {
  it("answers a question from the knowledge base with the spec's Chat reply and its source", async () => {
    const res = await app.request("/api/chat", { key: bank.apiKey, body: { message: "How do I reset my PIN?" } });
    expect(res.status).toBe(200);
    // The spec's fields, and who handled the message.
    expect(Object.keys(res.body).sort()).toEqual(["conversationId", "handledBy", "messageId", "metadata", "response"]);
    expect(res.body.handledBy).toBe("ai");
    expect(res.body.response).toContain("Reset PIN");
    expect(res.body.conversationId).toMatch(/^conv_/);
    expect(res.body.messageId).toMatch(/^msg_/);
    expect(res.body.metadata).toMatchObject({
      intent: expect.any(String),
      confidence: expect.any(Number),
      agentType: expect.any(String),
      tokensUsed: expect.any(Number),
    });
    expect(res.body.metadata.tokensUsed).toBeGreaterThan(0);
    expect(res.body.metadata.sources[0]).toMatchObject({ title: "Help centre" });

    // The conversation's first reply follows the AI disclosure, stored on its own (src/conversations/disclosure.ts).
    const messages = await app.request(`/api/conversations/${res.body.conversationId}/messages`, { key: bank.apiKey });
    expect(messages.body.messages.map((m: { role: string }) => m.role)).toEqual(["customer", "system", "assistant"]);
    expect(res.body.response.startsWith(`${messages.body.messages[1].content}\n\n`)).toBe(true);
    expect(messages.body.messages[2].id).toBe(res.body.messageId);
    const conversation = await app.request(`/api/conversations/${res.body.conversationId}`, { key: bank.apiKey });
    expect(conversation.body).toMatchObject({ channel: "api", status: "open", message_count: 3 });
  });

  it("continues a conversation by id, and says when it does not know", async () => {
    const first = await app.request("/api/chat", { key: bank.apiKey, body: { message: "When are branches open on Saturday?" } });
    expect(first.body.response).toContain("12.30pm");
    const second = await app.request("/api/chat", {
      key: bank.apiKey,
      body: { message: "What is the airspeed velocity of an unladen swallow?", conversationId: first.body.conversationId },
    });
    expect(second.status).toBe(200);
    expect(second.body.conversationId).toBe(first.body.conversationId);
    expect(second.body.response.toLowerCase()).toMatch(/not sure|don't know|do not know/);
    expect(second.body.metadata.agentType).toBe("fallback");
  });

  it("escalates an urgent intent such as a stolen card at once, and gives what the help centre says to do meanwhile", async () => {
    const res = await app.request("/api/chat", { key: bank.apiKey, body: { message: "My card was stolen this morning" } });
    expect(res.body).toMatchObject({ handledBy: "team" });
    expect(res.body.metadata).toMatchObject({ intent: "card_lost_or_stolen", agentType: "handoff" });
    expect(res.body.metadata.sources.map((s: { title: string }) => s.title)).toEqual(["Help centre"]);
    const conversation = await app.request(`/api/conversations/${res.body.conversationId}`, { key: bank.apiKey });
    expect(conversation.body.status).toBe("escalated");
    const messages = await app.request(`/api/conversations/${res.body.conversationId}/messages`, { key: bank.apiKey });
    const said = messages.body.messages
      .filter((m: { role: string }) => m.role === "assistant")
      .map((m: { content: string }) => m.content);
    expect(said).toHaveLength(2);
    expect(said[0]).toBe(handoffNotice);
    expect(said[1]).toMatch(/^While you wait: .*freeze it in the app and call 0800 123 456/);
    expect(res.body.response.endsWith(`${handoffNotice}\n\n${said[1]}`)).toBe(true);
  });

  it("escalates an urgent intent with the notice alone when the knowledge base does not answer it", async () => {
    const bare = await app.tenant("Bare Bank");
    const res = await app.request("/api/chat", { key: bare.apiKey, body: { message: "My card was stolen this morning" } });
    expect(res.body).toMatchObject({ handledBy: "team", metadata: { intent: "card_lost_or_stolen", sources: [] } });
    expect(res.body.response.endsWith(handoffNotice)).toBe(true);
  });

  it("escalates when the customer asks for a human, and the AI stops answering: the team has the next messages", async () => {
    const res = await app.request("/api/chat", {
      key: bank.apiKey,
      body: { message: "I want to speak to a real person please" },
    });
    expect(res.body).toMatchObject({ handledBy: "team", metadata: { agentType: "handoff" } });
    expect(res.body.response.toLowerCase()).toContain("team");
    const conversation = await app.request(`/api/conversations/${res.body.conversationId}`, { key: bank.apiKey });
    expect(conversation.body.status).toBe("escalated");
    const inbox = await nextInboxMessage(bank.tenantId);
    const next = await app.request("/api/chat", {
      key: bank.apiKey,
      body: { message: "How do I reset my PIN?", conversationId: res.body.conversationId },
    });
    expect(next.status).toBe(200);
    // Not the AI's answer: the notice that the message is with the team (test/conversations/waiting.test.ts).
    expect(next.body).toMatchObject({ handledBy: "team", metadata: { agentType: "human" } });
    expect(next.body.response).not.toContain("Reset PIN");

    const messages = await app.request(`/api/conversations/${res.body.conversationId}/messages`, { key: bank.apiKey });
    const held = messages.body.messages.find((m: { content: string }) => m.content === "How do I reset my PIN?");
    expect(held).toMatchObject({ role: "customer" });
    expect((await inbox.next).value).toEqual({ conversationId: res.body.conversationId, messageId: held.id });
    inbox.stop();
  });

  it.each([
    ["an empty message", { message: "" }, "message"],
    ["a message over 4,000 characters", { message: "x".repeat(4001) }, "message"],
    ["no message", {}, "message"],
    ["a channel with its own webhook", { message: "hi", channel: "sms" }, "channel"],
  ])("answers 422 VALIDATION for %s", async (_name, body, field) => {
    const res = await app.request("/api/chat", { key: bank.apiKey, body });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("VALIDATION");
    expect(JSON.stringify(res.body.details)).toContain(field);
  });

  it("answers 404 for an unknown or another tenant's conversation, streamed or not", async () => {
    const other = await app.tenant("Other");
    const mine = await app.request("/api/chat", { key: bank.apiKey, body: { message: "hello" } });
    for (const body of [
      { message: "hi", conversationId: "conv_unknown" },
      { message: "hi", conversationId: mine.body.conversationId },
      { message: "hi", conversationId: mine.body.conversationId, stream: true },
    ]) {
      const res = await app.request("/api/chat", { key: other.apiKey, body });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe("NOT_FOUND");
    }
  });

  it("refuses a message to another channel's conversation, which would reach that customer, and stores nothing", async () => {
    const widget = await app.request("/api/chat", { key: bank.apiKey, body: { message: "hello", channel: "widget" } });
    expect(widget.status).toBe(200);
    // A chat-app customer's conversation, as the channel's webhook stores it.
    const chatapp = await app.services.db.prisma.conversation.create({
      data: {
        id: newId("conv"),
        tenantId: bank.tenantId,
        channel: "chatapp",
        customerPhone: "+15550100",
        customerId: "+15550100",
      },
    });
    for (const [conversationId, on] of [
      [chatapp.id, "chatapp"],
      [widget.body.conversationId, "widget"],
    ] as const) {
      for (const stream of [false, true]) {
        const res = await app.request("/api/chat", {
          key: bank.apiKey,
          body: { message: "I want a person", conversationId, stream },
        });
        expect(res.status).toBe(422);
        expect(res.body).toEqual({ error: `The conversation is on the ${on} channel, not api`, code: "VALIDATION" });
      }
    }
    const stored = await app.services.db.prisma.message.count({ where: { conversationId: chatapp.id } });
    expect(stored).toBe(0);
    const after = await app.services.db.prisma.conversation.findUniqueOrThrow({ where: { id: chatapp.id } });
    expect(after.status).toBe("open");
  });

  it("needs a role that may converse", async () => {
    const viewer = await app.keyFor(bank.tenantId, "viewer");
    const res = await app.request("/api/chat", { key: viewer, body: { message: "hello" } });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("FORBIDDEN");
  });
});

describe("POST /api/chat streamed", () => {
  it.each([
    ["stream: true", { stream: true }, {}],
    ["Accept: text/event-stream", {}, { accept: "text/event-stream" }],
  ])("streams meta, deltas and done as server-sent events (%s)", async (_name, extra, headers) => {
    const res = await fetch(`${app.url}/api/chat`, {
      method: "POST",
      headers: { authorization: `Bearer ${bank.apiKey}`, "content-type": "application/json", ...headers },
      body: JSON.stringify({ message: "How can I reset the PIN of my card?", ...extra }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const events = await readEvents(res);
    expect(events[0]!.event).toBe("meta");
    const meta = JSON.parse(events[0]!.data);
    const deltas = events.filter((e) => e.event === "delta").map((e) => JSON.parse(e.data).text as string);
    expect(deltas.length).toBeGreaterThan(1);
    const done = events.at(-1)!;
    expect(done.event).toBe("done");
    const reply = JSON.parse(done.data);
    expect(reply).toMatchObject({ conversationId: meta.conversationId, messageId: meta.messageId });
    expect(deltas.join("")).toBe(reply.response);
    expect(reply.response).toContain("Reset PIN");
  });

  it("streams an urgent hand-off's notice, then what the help centre says to do meanwhile", async () => {
    const res = await fetch(`${app.url}/api/chat`, {
      method: "POST",
      headers: { authorization: `Bearer ${bank.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ message: "someone stole my bag with my card in it", stream: true }),
    });
    const events = await readEvents(res);
    const reply = JSON.parse(events.at(-1)!.data);
    expect(reply).toMatchObject({ handledBy: "team", metadata: { intent: "card_lost_or_stolen" } });
    const deltas = events.filter((e) => e.event === "delta").map((e) => JSON.parse(e.data).text as string);
    expect(deltas.join("")).toBe(reply.response);
    expect(deltas.findIndex((d) => d.includes(handoffNotice))).toBeLessThan(deltas.findIndex((d) => d.includes("0800 123 456")));
  });

  it("ends the reply that escalates for low confidence with the notice that a person will follow", async () => {
    const strict = await app.tenant("Strict Stream Bank");
    await app.graphql(UpdateTenantDocument, { lowConfidenceEscalateAfter: 1 }, strict.apiKey);
    const res = await fetch(`${app.url}/api/chat`, {
      method: "POST",
      headers: { authorization: `Bearer ${strict.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ message: "What is the airspeed velocity of an unladen swallow?", stream: true }),
    });
    const events = await readEvents(res);
    const reply = JSON.parse(events.at(-1)!.data);
    expect(events.at(-1)!.event).toBe("done");
    expect(reply.metadata.agentType).toBe("fallback");
    expect(reply.response.toLowerCase()).toMatch(/not sure|don't know|do not know/);
    expect(reply.response.endsWith(`\n\n${handoffNotice}`)).toBe(true);
    const deltas = events.filter((e) => e.event === "delta").map((e) => JSON.parse(e.data).text as string);
    expect(deltas.join("")).toBe(reply.response);
    const conversation = await app.request(`/api/conversations/${reply.conversationId}`, { key: strict.apiKey });
    expect(conversation.body.status).toBe("escalated");
  });
});
