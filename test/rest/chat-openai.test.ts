import { createParser, type ParserCallbacks } from "eventsource-parser";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { handoffNotice } from "../../src/conversations/escalate.js";
import type { ChatStep } from "../fakes/openai-chat.js";
import { type FakeOpenAI, type RecordedRequest, startFakeOpenAI } from "../fakes/openai-server.js";
import { SetDisclosureDocument, UpdateTenantDocument } from "../generated.js";
import { startTestApp, type TestApp } from "../helpers/app.js";

// The OpenAI engine end to end: the service, started with OPENAI_API_KEY and OPENAI_BASE_URL, talks to the fake
// model server over HTTP through the real `openai` SDK, for embeddings and chat completions alike.

let fake: FakeOpenAI;
let app: TestApp;
let bank: { tenantId: string; apiKey: string };
let sourceEmbedded: RecordedRequest[];

const faq = `Cards

To reset your card PIN, open the mobile app, choose Cards, then Reset PIN. The new PIN works at once.

Branches

Our branches are open Monday to Friday from 9am to 5pm.`;

const card = "4111 1111 1111 1111";
const email = "jo.bloggs@example.com";

const chatCompletions = () => fake.requests.filter((r) => r.path === "/v1/chat/completions");
/** The answer is the streamed completion; the router's classification is the other one. */
const answerRequests = () => chatCompletions().filter((r) => r.body.stream === true);
const classificationRequests = () => chatCompletions().filter((r) => r.body.response_format?.type === "json_schema");

/** Each customer message costs two model calls: the router classifies its intent, then the engine answers. */
function scriptTurn(answer: ChatStep, intent = { intent: "pin", confidence: 0.8 }): void {
  fake.script({ json: intent }, answer);
}

const chat = (body: Record<string, unknown>, key = bank.apiKey) => app.request("/api/chat", { key, body });

async function messagesOf(conversationId: string, key = bank.apiKey) {
  const res = await app.request(`/api/conversations/${conversationId}/messages`, { key });
  return res.body.messages as Array<{ role: string; content: string; metadata: Record<string, unknown> }>;
}

async function chatStream(body: Record<string, unknown>, callbacks: ParserCallbacks, signal?: AbortSignal) {
  const res = await fetch(`${app.url}/api/chat`, {
    method: "POST",
    headers: { authorization: `Bearer ${bank.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ ...body, stream: true }),
    signal,
  });
  expect(res.status).toBe(200);
  const parser = createParser(callbacks);
  const decoder = new TextDecoder();
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>)
    parser.feed(decoder.decode(chunk, { stream: true }));
}

async function streamedEvents(body: Record<string, unknown>) {
  const events: Array<{ event: string; data: any }> = [];
  await chatStream(body, { onEvent: (e) => events.push({ event: e.event ?? "message", data: JSON.parse(e.data) }) });
  return events;
}

beforeAll(async () => {
  fake = await startFakeOpenAI();
  // Heartbeats every 100 ms rather than 15 s, so that a slow model's stream shows them.
  app = await startTestApp({ OPENAI_API_KEY: fake.apiKey, OPENAI_BASE_URL: fake.url, SSE_HEARTBEAT_MS: "100" });
  bank = await app.tenant("Model Bank");
  // These tests read the model's own words, event by event; the AI disclosure that heads a conversation's first
  // reply has its own tests (test/conversations/disclosure.test.ts), so this tenant turns it off, explicitly.
  await app.graphql(SetDisclosureDocument, { aiDisclosureEnabled: false }, bank.apiKey);
  const added = await app.request("/api/knowledge/sources", {
    key: bank.apiKey,
    body: { type: "manual", title: "Help centre", content: faq },
  });
  expect(added.status).toBe(201);
  sourceEmbedded = fake.requests.filter((r) => r.path === "/v1/embeddings");
});
afterAll(async () => {
  await app?.close();
  await fake?.close();
});
beforeEach(() => {
  fake.requests.length = 0;
  fake.setFallback({ text: "Hello from the fake model." });
});

describe("POST /api/chat with the OpenAI engine", () => {
  it("embeds a manual source through the model server's embeddings endpoint", () => {
    expect(sourceEmbedded).toHaveLength(1);
    expect(sourceEmbedded[0]!.body.model).toBe("text-embedding-3-small");
    expect(JSON.stringify(sourceEmbedded[0]!.body.input)).toContain("To reset your card PIN, open the mobile app");
  });

  it("answers with the model's reply, the server's token count, the router's intent and the retrieved source", async () => {
    const text = "Open the mobile app, choose Cards, then Reset PIN (Help centre).";
    scriptTurn({ text, usage: { prompt_tokens: 412, completion_tokens: 19 } }, { intent: "pin", confidence: 0.86 });
    const res = await chat({ message: "How do I reset my PIN?" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      response: text,
      messageId: expect.stringMatching(/^msg_/),
      metadata: { intent: "pin", confidence: 0.86, agentType: "support", tokensUsed: 431 },
    });
    expect(res.body.metadata.sources).toEqual([expect.objectContaining({ title: "Help centre" })]);
    expect(fake.requests.find((r) => r.path === "/v1/embeddings")!.body.input).toEqual(["How do I reset my PIN?"]);
    expect((await messagesOf(res.body.conversationId)).map((m) => [m.role, m.content])).toEqual([
      ["customer", "How do I reset my PIN?"],
      ["assistant", text],
    ]);
  });

  it("searches the knowledge base while the model is still classifying the message", async () => {
    let release!: () => void;
    const holdUntil = new Promise<void>((resolve) => {
      release = resolve;
    });
    const question = "Where in the app do I reset the PIN of my debit card?";
    fake.script({ json: { intent: "pin", confidence: 0.9 }, holdUntil }, { text: "Cards, then Reset PIN (Help centre)." });
    const reply = chat({ message: question });
    // The question's embedding is asked for while the classification has no answer yet.
    await expect
      .poll(() => fake.requests.some((r) => r.path === "/v1/embeddings" && JSON.stringify(r.body.input).includes(question)))
      .toBe(true);
    expect(answerRequests()).toHaveLength(0);
    release();
    const res = await reply;
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ response: "Cards, then Reset PIN (Help centre).", metadata: { intent: "pin" } });
    expect(res.body.metadata.sources).toEqual([expect.objectContaining({ title: "Help centre" })]);
  });

  it("sends the tenant's persona and the retrieved chunk, quoted inside the context block, to the model", async () => {
    const persona = "Penny, the bank's cheerful and brief assistant";
    const updated = await app.graphql(UpdateTenantDocument, { persona }, bank.apiKey);
    expect(updated.data?.updateTenant.settings).toMatchObject({ persona });
    scriptTurn({ text: "Choose Cards, then Reset PIN." });
    await chat({ message: "How do I reset my PIN?" });
    const [system, ...rest] = answerRequests()[0]!.body.messages as Array<{ role: string; content: string }>;
    expect(system!.role).toBe("system");
    expect(system!.content).toContain(persona);
    const block = system!.content.slice(system!.content.indexOf("\n<context>\n") + 1);
    expect(block).toMatch(
      /^<context>\n<source id="src_\w+" title="Help centre"[^>]*>\n[^<]*To reset your card PIN, open the mobile app/,
    );
    expect(block.endsWith("</source>\n</context>")).toBe(true);
    expect(rest.at(-1)).toEqual({ role: "user", content: "How do I reset my PIN?" });
  });

  it('streams meta, the deltas in the order the model sent them, then done, with "stream": true', async () => {
    scriptTurn({ text: "Choose Cards, then Reset PIN.", deltas: 3, usage: { prompt_tokens: 300, completion_tokens: 8 } });
    const events = await streamedEvents({ message: "How can I reset the PIN of my card?" });
    expect(events.map((e) => e.event)).toEqual(["meta", "delta", "delta", "delta", "done"]);
    expect(events.slice(1, 4).map((e) => e.data.text)).toEqual(["Choose Car", "ds, then R", "eset PIN."]);
    const [meta, done] = [events[0]!.data, events.at(-1)!.data];
    expect(done).toMatchObject({
      response: "Choose Cards, then Reset PIN.",
      conversationId: meta.conversationId,
      messageId: meta.messageId,
      metadata: { tokensUsed: 308 },
    });
  });

  it("keeps a stream alive with heartbeat comments while the model is slow to answer", async () => {
    // The model answers only once three heartbeats have reached the client: slow by a condition, not a clock.
    let beatsSeen!: () => void;
    const holdUntil = new Promise<void>((resolve) => {
      beatsSeen = resolve;
    });
    scriptTurn({ text: "Choose Cards, then Reset PIN.", deltas: 2, holdUntil });
    const seen: string[] = [];
    await chatStream(
      { message: "How do I reset my PIN?" },
      {
        onEvent: (e) => seen.push(e.event ?? "message"),
        onComment: (comment) => {
          seen.push(`:${comment.trim()}`);
          if (seen.filter((s) => s === ":heartbeat").length === 3) beatsSeen();
        },
      },
    );
    expect(seen.filter((s) => s === ":heartbeat").length).toBeGreaterThanOrEqual(3);
    // The events in order; a heartbeat may come before `meta` too, when routing the message (a model call) takes longer
    // than the 100 ms between heartbeats, as it does on a loaded machine.
    expect(seen.filter((s) => s !== ":heartbeat")).toEqual(["meta", "delta", "delta", "done"]);
  });

  it("answers 502 EXTERNAL, or an error event, when the model server keeps failing, and stores no reply", async () => {
    scriptTurn({ text: "Our branches open at 9am." }, { intent: "opening_hours", confidence: 0.9 });
    const first = await chat({ message: "When do branches open?" });
    const { conversationId } = first.body;

    fake.requests.length = 0;
    scriptTurn({ fail: "status", status: 500 }, { intent: "opening_hours", confidence: 0.9 });
    fake.setFallback({ fail: "status", status: 500 });
    const failed = await chat({ message: "And on Saturday?", conversationId });
    expect(failed.status).toBe(502);
    expect(failed.body).toMatchObject({ code: "EXTERNAL", error: expect.stringContaining("HTTP 500") });
    expect(answerRequests()).toHaveLength(3); // the first attempt and the SDK's two retries

    scriptTurn({ fail: "status", status: 500 }, { intent: "opening_hours", confidence: 0.9 });
    const events = await streamedEvents({ message: "And on Sunday?", conversationId });
    expect(events.map((e) => e.event)).toEqual(["meta", "error"]);
    expect(events[1]!.data).toMatchObject({ code: "EXTERNAL" });

    expect((await messagesOf(conversationId)).map((m) => [m.role, m.content])).toEqual([
      ["customer", "When do branches open?"],
      ["assistant", "Our branches open at 9am."],
      ["customer", "And on Saturday?"],
      ["customer", "And on Sunday?"],
    ]);
    const conversation = await app.request(`/api/conversations/${conversationId}`, { key: bank.apiKey });
    expect(conversation.body).toMatchObject({ status: "open", message_count: 4 });
  });

  it("stops generating when the client disconnects mid-stream, and stores the partial reply marked as such", async () => {
    const text = "One two three four five six seven eight nine ten.";
    scriptTurn({ text, deltas: 10, delayMs: 150 });
    const controller = new AbortController();
    const received: Array<{ event?: string; data: any }> = [];
    const reading = chatStream(
      { message: "How do I reset my PIN?" },
      {
        onEvent: (e) => {
          received.push({ event: e.event, data: JSON.parse(e.data) });
          if (e.event === "delta") controller.abort();
        },
      },
      controller.signal,
    );
    await expect(reading).rejects.toMatchObject({ name: "AbortError" });
    const [meta, firstDelta] = received.map((e) => e.data);

    await expect.poll(() => answerRequests()[0]?.clientClosed).toBe(true);
    expect(answerRequests()[0]!.deltasSent).toBeLessThan(10);
    let partial: { content: string; metadata: Record<string, unknown> } | undefined;
    await expect
      .poll(async () => {
        partial = (await messagesOf(meta.conversationId)).find((m) => m.role === "assistant");
        return partial;
      })
      .toBeDefined();
    expect(partial!.metadata).toMatchObject({ partial: true });
    expect(partial!.content.startsWith(firstDelta.text)).toBe(true);
    expect(text.startsWith(partial!.content)).toBe(true);
    expect(partial!.content.length).toBeLessThan(text.length);
  });
});

describe("PII and the model server", () => {
  const message = `My card ${card} was charged twice, please e-mail me at ${email}`;

  it("masks the customer's card number and e-mail before anything leaves for the model server, and keeps them in the conversation", async () => {
    scriptTurn({ text: "I'm sorry about that. Our team will look into the double charge." });
    const res = await chat({ message });
    expect(res.status).toBe(200);
    const sent = JSON.stringify(fake.requests.map((r) => r.body));
    expect(sent).not.toContain(card);
    expect(sent).not.toContain(card.replaceAll(" ", ""));
    expect(sent).not.toContain(email);
    expect(answerRequests()[0]!.body.messages.at(-1).content).toBe(
      "My card [CARD •••• 1111] was charged twice, please e-mail me at [EMAIL]",
    );
    expect((await messagesOf(res.body.conversationId))[0]).toMatchObject({ role: "customer", content: message });
  });

  it("sends them as they are to the answering model when the tenant turns piiRedaction off", async () => {
    const other = await app.tenant("Unmasked Bank");
    const updated = await app.graphql(UpdateTenantDocument, { piiRedaction: false }, other.apiKey);
    expect(updated.data?.updateTenant.settings).toMatchObject({ piiRedaction: false });
    scriptTurn({ text: "Our team will look into it." });
    await chat({ message }, other.apiKey);
    expect(answerRequests()[0]!.body.messages.at(-1).content).toBe(message);
  });
});

describe("intent classification by the model", () => {
  it("routes on the model's structured classification among the tenant's intents: a human request escalates", async () => {
    fake.script({ json: { intent: "human_request", confidence: 0.9 } });
    const res = await chat({ message: "Could somebody look at what happened with my payment yesterday?" });
    expect(res.status).toBe(200);
    expect(res.body.metadata).toMatchObject({ intent: "human_request", confidence: 0.9, agentType: "handoff" });
    expect(res.body.response).toMatch(/member of our team/);
    const conversation = await app.request(`/api/conversations/${res.body.conversationId}`, { key: bank.apiKey });
    expect(conversation.body.status).toBe("escalated");

    const [classification] = classificationRequests();
    expect(classification!.body.response_format.json_schema.schema.properties.intent.enum).toEqual(
      expect.arrayContaining(["human_request", "pin", "card_lost_or_stolen", "opening_hours"]),
    );
    expect(classification!.body.messages.at(-1)).toEqual({
      role: "user",
      content: "Could somebody look at what happened with my payment yesterday?",
    });
    expect(answerRequests()).toHaveLength(0);
  });

  it("answers a human request below the escalation bar with the AI, and says so: not a hand-off", async () => {
    fake.script({ json: { intent: "human_request", confidence: 0.3 } }, { text: "Choose Cards, then Reset PIN." });
    const res = await chat({ message: "is there someone who knows how to reset a pin" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ handledBy: "ai", response: "Choose Cards, then Reset PIN." });
    expect(res.body.metadata).toMatchObject({ intent: "human_request", confidence: 0.3, agentType: "faq" });
    const conversation = await app.request(`/api/conversations/${res.body.conversationId}`, { key: bank.apiKey });
    expect(conversation.body.status).toBe("open");
  });

  it("hands an urgent message over, then gives the model's answer from the knowledge base while the customer waits", async () => {
    fake.script(
      { json: { intent: "card_lost_or_stolen", confidence: 0.95 } },
      { text: "Freeze it in the app under Cards (Help centre)." },
    );
    const res = await chat({ message: "my card was stolen" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ handledBy: "team", metadata: { intent: "card_lost_or_stolen", agentType: "handoff" } });
    expect(res.body.response).toBe(`${handoffNotice}\n\nWhile you wait: Freeze it in the app under Cards (Help centre).`);
    expect(res.body.metadata.sources.map((s: { title: string }) => s.title)).toEqual(["Help centre"]);
    expect(answerRequests()).toHaveLength(1);
  });

  it("hands an urgent message over with the notice alone when the model server fails on the answer", async () => {
    const outage = { fail: "status", status: 503 } as const;
    fake.script({ json: { intent: "card_lost_or_stolen", confidence: 0.95 } }, outage, outage, outage);
    fake.setFallback(outage);
    const res = await chat({ message: "my card was stolen" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ handledBy: "team", response: handoffNotice, metadata: { sources: [] } });
    const messages = await messagesOf(res.body.conversationId);
    expect(messages.map((m) => [m.role, m.content])).toEqual([
      ["customer", "my card was stolen"],
      ["assistant", handoffNotice],
    ]);
    const conversation = await app.request(`/api/conversations/${res.body.conversationId}`, { key: bank.apiKey });
    expect(conversation.body.status).toBe("escalated");
  });

  it("falls back to the tenant's local classifier when the classification call fails", async () => {
    const outage = { fail: "status", status: 503 } as const;
    fake.script(outage, outage, outage, { text: "Choose Cards, then Reset PIN." });
    const res = await chat({ message: "How do I reset my PIN?" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ response: "Choose Cards, then Reset PIN.", metadata: { intent: "pin" } });
    expect(classificationRequests()).toHaveLength(3);
  });
});
