import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatStep } from "../fakes/openai-chat.js";
import { type FakeOpenAI, startFakeOpenAI } from "../fakes/openai-server.js";
import { SendChatDocument, SetDisclosureDocument } from "../generated.js";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { type ChatStreams, chatStreams } from "../helpers/chat-stream.js";

// The OpenAI engine through GraphQL, against the fake model server: the `chat` mutation, and the `chatStream`
// subscription read with the graphql-sse client (the REST paths: test/rest/chat-openai.test.ts).

let fake: FakeOpenAI;
let app: TestApp;
let bank: { tenantId: string; apiKey: string };
let streams: ChatStreams;

const faq = `Cards

To reset your card PIN, open the mobile app, choose Cards, then Reset PIN. The new PIN works at once.`;

const bearer = () => ({ authorization: `Bearer ${bank.apiKey}` });

/** Each customer message costs two model calls: the router classifies its intent, then the engine answers. */
function scriptTurn(answer: ChatStep): void {
  fake.script({ json: { intent: "pin", confidence: 0.8 } }, answer);
}

beforeAll(async () => {
  fake = await startFakeOpenAI();
  app = await startTestApp({ OPENAI_API_KEY: fake.apiKey, OPENAI_BASE_URL: fake.url });
  streams = chatStreams(app.url);
  bank = await app.tenant("Model Graph Bank");
  // These tests read the model's own words, event by event; the AI disclosure that heads a conversation's first
  // reply has its own tests (test/conversations/disclosure.test.ts), so this tenant turns it off, explicitly.
  await app.graphql(SetDisclosureDocument, { aiDisclosureEnabled: false }, bank.apiKey);
  const added = await app.request("/api/knowledge/sources", {
    key: bank.apiKey,
    body: { type: "manual", title: "Help centre", content: faq },
  });
  expect(added.status).toBe(201);
});
afterAll(async () => {
  streams?.dispose();
  await app?.close();
  await fake?.close();
});

describe("the OpenAI engine through GraphQL", () => {
  it("answers the chat mutation with the model's reply, the server's token count, the intent and the source", async () => {
    const text = "Open the mobile app, choose Cards, then Reset PIN (Help centre).";
    scriptTurn({ text, usage: { prompt_tokens: 400, completion_tokens: 20 } });
    const res = await app.graphql(SendChatDocument, { message: "How do I reset my PIN?" }, bank.apiKey);
    expect(res.errors).toBeUndefined();
    expect(res.data!.chat).toMatchObject({
      response: text,
      messageId: expect.stringMatching(/^msg_/),
      metadata: { intent: "pin", confidence: 0.8, agentType: "support", tokensUsed: 420 },
    });
    expect(res.data!.chat.metadata.sources).toEqual([expect.objectContaining({ title: "Help centre" })]);
  });

  it("streams the model's deltas, in the order it sent them, over the chatStream subscription, then done", async () => {
    scriptTurn({ text: "Choose Cards, then Reset PIN.", deltas: 3, usage: { prompt_tokens: 300, completion_tokens: 8 } });
    const results = await streams.subscribe(bearer(), { message: "How can I reset the PIN of my card?" });
    expect(results.every((r) => !r.errors)).toBe(true);
    const events = results.map((r) => r.data!.chatStream);
    expect(events.map((e) => e.type)).toEqual(["meta", "delta", "delta", "delta", "done"]);
    expect(events.slice(1, 4).map((e) => e.text)).toEqual(["Choose Car", "ds, then R", "eset PIN."]);
    expect(events[4]!.reply).toMatchObject({
      response: "Choose Cards, then Reset PIN.",
      conversationId: events[0]!.conversationId,
      messageId: events[0]!.messageId,
      metadata: { intent: "pin", tokensUsed: 308 },
    });
  });

  it("says EXTERNAL in extensions.code, and in the stream's error event, when the model server keeps failing", async () => {
    const outage = { fail: "status", status: 500 } as const;
    fake.setFallback(outage);
    try {
      scriptTurn(outage);
      const res = await app.graphql(SendChatDocument, { message: "When do branches open?" }, bank.apiKey);
      expect(res.data ?? null).toBeNull();
      expect(res.errors).toEqual([
        expect.objectContaining({ message: expect.stringContaining("HTTP 500"), extensions: { code: "EXTERNAL" } }),
      ]);

      scriptTurn(outage);
      const results = await streams.subscribe(bearer(), { message: "And on Saturday?" });
      const events = results.map((r) => r.data!.chatStream);
      expect(events.map((e) => e.type)).toEqual(["meta", "error"]);
      expect(events[1]!.error).toMatchObject({ code: "EXTERNAL", error: expect.stringContaining("HTTP 500") });
    } finally {
      fake.setFallback({ text: "Hello from the fake model." });
    }
  });
});
