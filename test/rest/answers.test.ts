import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dontKnow } from "../../src/ai/local.js";
import { defaultDisclosure } from "../../src/conversations/disclosure.js";
import { handoffNotice } from "../../src/conversations/escalate.js";
import { newBankFaq } from "../fixtures/new-bank-faq.js";
import { AnalyticsForTestDocument, UpdateTenantDocument } from "../generated.js";
import { startTestApp, type TestApp } from "../helpers/app.js";

describe("the offline engine answers a new bank's customers from its FAQ", () => {
  let app: TestApp;
  let key: string;
  const ask = async (message: string) => {
    const res = await app.request("/api/chat", { key, body: { message } });
    expect(res.status).toBe(200);
    return res.body as { response: string; metadata: { intent: string; agentType: string; suggestions: string[] } };
  };

  beforeAll(async () => {
    app = await startTestApp();
    key = (await app.tenant("New Bank")).apiKey;
    const added = await app.request("/api/knowledge/sources", {
      key,
      body: { type: "manual", title: "Bank FAQ", content: newBankFaq },
    });
    expect(added.status).toBe(201);
    expect(added.body.chunks).toBe(8);
  });
  afterAll(() => app.close());

  it.each([
    ["My card is worn out and stopped working, how do I get a new one?", ["Order a replacement card", "5 business days"]],
    ["monthly charge for the current account? I'm 22", ["free for customers under 26", "4 EUR per month"]],
    ["i forgot my pin, what do i do", ["Reset PIN"]],
    ["how much cash can i take out in a day", ["1,000 EUR"]],
  ])("answers %j with the whole FAQ answer and its source", async (question, facts) => {
    const reply = await ask(question);
    for (const fact of facts) expect(reply.response).toContain(fact);
    expect(reply.response).toContain("(Source: Bank FAQ)");
    expect(reply.metadata.agentType).not.toMatch(/fallback|handoff/);
    expect(reply.metadata.suggestions).toEqual([]);
  });

  it.each(["Do you offer crypto trading?", "What is the weather in Paris tomorrow?"])(
    "declines %j honestly and offers a person",
    async (question) => {
      const reply = await ask(question);
      // Each question starts a conversation, whose first reply follows the AI disclosure.
      expect(reply.response).toBe(`${defaultDisclosure("New Bank", {}, "api")}\n\n${dontKnow}`);
      expect(reply.metadata.agentType).toBe("fallback");
      expect(reply.metadata.suggestions).toEqual([]);
    },
  );

  it("reads a follow-up with the question before it, and a message that only carries on alone first", async () => {
    const turn = async (message: string, conversationId?: string) => {
      const res = await app.request("/api/chat", { key, body: { message, ...(conversationId ? { conversationId } : {}) } });
      expect(res.status).toBe(200);
      return res.body as { response: string; conversationId: string };
    };
    // Alone, "is it free?" is not about a replacement card.
    expect((await turn("is it free?")).response).not.toContain("Order a replacement card");
    const first = await turn("How do I replace a damaged card?");
    expect(first.response).toContain("Order a replacement card");
    for (const followUp of ["is it free?", "how long does it take?"]) {
      const reply = await turn(followUp, first.conversationId);
      expect(reply.response).toContain("5 business days and is free of charge");
      expect(reply.response).toContain("(Source: Bank FAQ)");
    }
    const fees = await turn("Is there a monthly fee for the current account?");
    expect(fees.response).toContain("4 EUR per month");
    expect((await turn("and how do I reset my PIN?", fees.conversationId)).response).toContain("Reset PIN");
  });

  it("shows the FAQ entry first in the test console for a paraphrased question", async () => {
    const res = await app.request("/api/knowledge", { key, body: { query: "whats the max i can pay by tapping", topK: 3 } });
    expect(res.status).toBe(200);
    expect(res.body.results[0].title).toBe("Bank FAQ › What is the contactless payment limit?");
    expect(res.body.results[0].score).toBeGreaterThan(res.body.results[1].score);
  });

  it("declines a question it cannot place with the FAQ questions the customer may have meant, kept with the reply", async () => {
    const res = await app.request("/api/chat", { key, body: { message: "the limit for taking cash out" } });
    expect(res.status).toBe(200);
    expect(res.body.metadata.agentType).toBe("fallback");
    expect(res.body.response).toContain(
      "Did you mean one of these? Reply with its number.\n1. How much can I withdraw from an ATM per day?",
    );
    expect(res.body.response).toMatch(/connect you with one of our team\?$/);
    const stored = await app.request(`/api/conversations/${res.body.conversationId}/messages`, { key });
    const reply = stored.body.messages.find(
      (m: { role: string; metadata: { grounded?: boolean } }) => m.role === "assistant" && m.metadata.grounded === false,
    );
    expect(reply.metadata.suggestions[0]).toBe("How much can I withdraw from an ATM per day?");
    // The reply gives them too, for a surface that offers them as buttons.
    expect(res.body.metadata.suggestions).toEqual(reply.metadata.suggestions);
    expect(reply.content).toContain(`${reply.metadata.suggestions.length}. ${reply.metadata.suggestions.at(-1)}`);
    const next = (message: string) =>
      app.request("/api/chat", { key, body: { message, conversationId: res.body.conversationId } });
    // Its number asks the question it names, answered as if the customer had written it.
    const picked = await next("1");
    expect(picked.body.response).toContain("The daily ATM withdrawal limit is 1,000 EUR.");
    expect(picked.body.metadata.agentType).not.toMatch(/fallback|handoff/);
    // A number after an answer is a message like any other.
    expect((await next("1")).body.response).not.toContain("1,000 EUR");
  });

  it("counts in analytics the declines that listed questions and the answers to a question chosen from them", async () => {
    const bank = await app.tenant("New Counting Bank");
    await app.request("/api/knowledge/sources", {
      key: bank.apiKey,
      body: { type: "manual", title: "Bank FAQ", content: newBankFaq },
    });
    const ask = (message: string, conversationId?: string, choice?: unknown) =>
      app.request("/api/chat", { key: bank.apiKey, body: { message, conversationId, choice } });
    const declined = await ask("the limit for taking cash out");
    await ask("2", declined.body.conversationId);
    const typed = await ask("the limit for taking cash out");
    // The question typed out rather than chosen is an answer like any other.
    await ask("How much can I withdraw from an ATM per day?", typed.body.conversationId);
    // An API client that shows the listed questions as buttons says when one was pressed.
    const pressed = await ask("the limit for taking cash out");
    const question = pressed.body.metadata.suggestions[0];
    const refused = await ask(question, pressed.body.conversationId, "yes");
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe("VALIDATION");
    expect((await ask(question, pressed.body.conversationId, true)).body.response).toContain("1,000 EUR");
    const figures = await app.request("/api/analytics", { key: bank.apiKey });
    expect(figures.body.listed_questions).toEqual({ offered: 3, chosen: 2, rate: 2 / 3 });
    const graphql = await app.graphql(AnalyticsForTestDocument, {}, bank.apiKey);
    expect(graphql.data?.analytics.listedQuestions).toEqual({ offered: 3, chosen: 2, rate: 2 / 3 });
  });

  it("reads a number said in words, as a voice call's speech comes, as the choice it names", async () => {
    const res = await app.request("/api/chat", { key, body: { message: "the limit for taking cash out" } });
    const picked = await app.request("/api/chat", {
      key,
      body: { message: "The first one.", conversationId: res.body.conversationId },
    });
    expect(picked.body.response).toContain("The daily ATM withdrawal limit is 1,000 EUR.");
  });

  it("lists no questions in the decline that hands the conversation to the team: the team answers next", async () => {
    const strict = await app.tenant("New Strict Bank");
    await app.request("/api/knowledge/sources", {
      key: strict.apiKey,
      body: { type: "manual", title: "Bank FAQ", content: newBankFaq },
    });
    await app.graphql(UpdateTenantDocument, { lowConfidenceEscalateAfter: 2 }, strict.apiKey);
    const ask = (message: string, conversationId?: string) =>
      app.request("/api/chat", { key: strict.apiKey, body: { message, conversationId } });
    const first = await ask("the limit for taking cash out");
    expect(first.body.metadata.suggestions[0]).toBe("How much can I withdraw from an ATM per day?");
    expect(first.body.handledBy).toBe("ai");
    const second = await ask("and the limit for taking cash out abroad?", first.body.conversationId);
    expect(second.body.handledBy).toBe("team");
    expect(second.body.response).toBe(`${dontKnow}\n\n${handoffNotice}`);
    expect(second.body.metadata.suggestions).toEqual([]);
    const stored = await app.request(`/api/conversations/${first.body.conversationId}/messages`, { key: strict.apiKey });
    const decline = stored.body.messages.find((m: { id: string }) => m.id === second.body.messageId);
    expect(decline.metadata.suggestions).toBeUndefined();
  });

  it('hands a customer who was listed questions over on "yes please", and reads a number past the list as a message', async () => {
    const res = await app.request("/api/chat", { key, body: { message: "the limit for taking cash out" } });
    const next = (message: string) =>
      app.request("/api/chat", { key, body: { message, conversationId: res.body.conversationId } });
    expect((await next("9")).body.metadata.agentType).toBe("fallback");
    expect((await next("yes please")).body.metadata.agentType).toBe("handoff");
  });
});
