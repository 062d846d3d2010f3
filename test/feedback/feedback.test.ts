import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { surveyQuestion, surveyThanks } from "../../src/feedback/survey.js";
import { type FakeProviders, startFakeProviders } from "../fakes/providers.js";
import { RateConversationForTestDocument, RateMessageForTestDocument } from "../generated.js";
import { startTestApp, type TestApp } from "../helpers/app.js";
import {
  chatappMessageEvent,
  configureChannel,
  conversationMessages,
  conversationOf,
  metaSignature,
} from "../helpers/channels.js";

// Customer feedback (issue 12, item 8): thumbs on the AI's replies from the widget and the API, the satisfaction
// question at resolution (widget buttons, a text reply on the chat app, the API), and the analytics they feed.

const site = "https://www.feedback-bank.example";
const faq = "Cards\n\nTo reset your card PIN, open the mobile app, choose Cards, then Reset PIN. The new PIN works at once.";
const chatapp = {
  phone_number_id: "250000000000001",
  access_token: "EAAG-feedback-token",
  verify_token: "vt_feedback",
  app_secret: "feedback_app_secret",
};

let providers: FakeProviders;
let app: TestApp;
let bank: { tenantId: string; apiKey: string };
let widgetToken: string;

beforeAll(async () => {
  providers = await startFakeProviders();
  app = await startTestApp(providers.env);
  bank = await app.tenant("Feedback Bank");
  const source = await app.request("/api/knowledge/sources", {
    key: bank.apiKey,
    body: { type: "manual", title: "FAQ", content: faq },
  });
  expect(source.status).toBe(201);
  await configureChannel(app, bank.apiKey, "chatapp", chatapp);
  await configureChannel(app, bank.apiKey, "widget", {}, { allowed_origins: [site] });
  widgetToken = (await app.request("/api/widget/tokens", { key: bank.apiKey, body: {} })).body.token;
  app.startWorker();
});
afterAll(async () => {
  await app?.close();
  await providers?.close();
});

const chat = (message: string, conversationId?: string) =>
  app.request("/api/chat", { key: bank.apiKey, body: { message, conversationId } });

/** Hands the conversation to a person and resolves it, as an agent does. */
async function resolve(conversationId: string) {
  const escalated = await app.request("/api/escalations", { key: bank.apiKey, body: { conversation_id: conversationId } });
  expect(escalated.status, JSON.stringify(escalated.body)).toBe(201);
  const resolved = await app.request("/api/escalations", {
    method: "PUT",
    key: bank.apiKey,
    body: { id: escalated.body.id, status: "resolved" },
  });
  expect(resolved.status, JSON.stringify(resolved.body)).toBe(200);
}

function widget(visitor?: string) {
  const headers = { "x-widget-token": widgetToken, origin: site, ...(visitor ? { "x-widget-visitor": visitor } : {}) };
  return {
    init: () => app.request("/api/v1/widget/init", { body: {}, headers }),
    send: (message: string) => app.request("/api/v1/widget/message", { body: { message }, headers }),
    rate: (body: unknown) => app.request("/api/v1/widget/feedback", { body, headers }),
    score: (body: unknown) => app.request("/api/v1/widget/satisfaction", { body, headers }),
  };
}

describe("thumbs on the AI's replies", () => {
  it("records one rating per reply through REST and GraphQL, changed when given again, and shows it with the message", async () => {
    const reply = await chat("How do I reset my card PIN?");
    const messageId = reply.body.messageId as string;
    const up = await app.request(`/api/messages/${messageId}/feedback`, { key: bank.apiKey, body: { rating: "up" } });
    expect(up.status).toBe(200);
    expect(up.body).toMatchObject({ message_id: messageId, rating: "up", comment: null, source: "api", channel: "api" });
    const down = await app.graphql(
      RateMessageForTestDocument,
      { messageId, rating: "down", comment: "It did not mention the branch." },
      bank.apiKey,
    );
    expect(down.data!.rateMessage).toMatchObject({ rating: "down", comment: "It did not mention the branch." });
    expect(await app.services.db.prisma.messageFeedback.count({ where: { messageId } })).toBe(1);
    const stored = (await conversationMessages(app, bank.apiKey, reply.body.conversationId)).find((m) => m.id === messageId);
    expect((stored as unknown as { feedback: unknown }).feedback).toEqual({
      rating: "down",
      comment: "It did not mention the branch.",
    });
  });

  it("answers 422 for what is not an AI reply or not a rating, 404 for an unknown message, 403 to a viewer", async () => {
    const reply = await chat("How do I reset my card PIN?");
    const [customer] = await conversationMessages(app, bank.apiKey, reply.body.conversationId);
    const rate = (id: string, body: unknown, key = bank.apiKey) => app.request(`/api/messages/${id}/feedback`, { key, body });
    expect((await rate(customer!.id, { rating: "up" })).body.code).toBe("VALIDATION");
    expect((await rate(reply.body.messageId, { rating: "meh" })).status).toBe(422);
    expect((await rate(reply.body.messageId, { rating: "up", comment: "x".repeat(1001) })).status).toBe(422);
    expect((await rate("msg_unknown", { rating: "up" })).status).toBe(404);
    const viewer = await app.keyFor(bank.tenantId, "viewer");
    expect((await rate(reply.body.messageId, { rating: "up" }, viewer)).status).toBe(403);
  });

  it("takes the widget visitor's rating of their own conversation's replies only", async () => {
    const visitor = (await widget().init()).body.visitor_id as string;
    const reply = await widget(visitor).send("How do I reset my card PIN?");
    const rated = await widget(visitor).rate({ message_id: reply.body.messageId, rating: "up" });
    expect(rated.status, JSON.stringify(rated.body)).toBe(200);
    expect(rated.body).toMatchObject({ rating: "up", source: "widget", channel: "widget" });

    const stranger = (await widget().init()).body.visitor_id as string;
    await widget(stranger).send("Hello");
    expect((await widget(stranger).rate({ message_id: reply.body.messageId, rating: "down" })).status).toBe(404);
    expect((await widget(visitor).rate({ message_id: reply.body.messageId })).status).toBe(422);
  });
});

describe("the satisfaction question at resolution", () => {
  it("on the widget: asked with the conversation's messages, answered with a score from 1 to 5", async () => {
    const visitor = (await widget().init()).body.visitor_id as string;
    const reply = await widget(visitor).send("How do I reset my card PIN?");
    expect((await widget(visitor).score({ score: 4 })).status).toBe(422); // nothing asked yet
    await resolve(reply.body.conversationId);
    const resumed = await widget(visitor).init();
    expect(resumed.body.messages.at(-1)).toMatchObject({ role: "system", kind: "survey", content: surveyQuestion });
    expect((await widget(visitor).score({ score: 6 })).status).toBe(422);
    const scored = await widget(visitor).score({ score: 5 });
    expect(scored.status, JSON.stringify(scored.body)).toBe(200);
    expect(scored.body).toMatchObject({ conversation_id: reply.body.conversationId, score: 5, answered_at: expect.any(String) });
  });

  it("on the chat app: sent as a text question, and the customer's number is the score, not a question for the AI", async () => {
    const from = "15550202020";
    const post = (id: string, body: string) => {
      const raw = chatappMessageEvent(chatapp.phone_number_id, {
        from,
        id,
        timestamp: "1700000000",
        type: "text",
        text: { body },
      });
      return app.request("/api/channels/chatapp", {
        body: raw,
        headers: { "content-type": "application/json", "x-hub-signature-256": metaSignature(raw, chatapp.app_secret) },
      });
    };
    const sent = () => providers.sends.filter((send) => send.body?.to === from).map((send) => send.body.text.body as string);
    const nextSent = (count: number) =>
      vi.waitFor(
        () => {
          expect(sent().length).toBeGreaterThanOrEqual(count);
          return sent()[count - 1]!;
        },
        { timeout: 15_000, interval: 100 },
      );
    expect((await post("wamid.FB1", "How do I reset my card PIN?")).status).toBe(200);
    await nextSent(1);
    const conversation = await conversationOf(app, bank.apiKey, "chatapp", from);
    await resolve(conversation.id);
    // The hand-off notice of the escalation, then the question once it is resolved.
    expect(await nextSent(3)).toBe(surveyQuestion);

    expect((await post("wamid.FB2", "4")).status).toBe(200);
    expect(await nextSent(4)).toBe(surveyThanks);
    const messages = await conversationMessages(app, bank.apiKey, conversation.id);
    expect(messages.slice(-2).map((m) => [m.role, m.content, m.metadata.kind])).toEqual([
      ["customer", "4", "survey_answer"],
      ["system", surveyThanks, "survey_thanks"],
    ]);
    expect((await app.request(`/api/conversations/${conversation.id}`, { key: bank.apiKey })).body.status).toBe("resolved");
    // Answered: the next number is an ordinary message again, answered by the AI in the reopened conversation.
    expect((await post("wamid.FB3", "5")).status).toBe(200);
    expect(await nextSent(5)).not.toBe(surveyThanks);
  });

  it("through the API: the score of a resolved conversation while its question is open", async () => {
    const reply = await chat("How do I reset my card PIN?");
    const conversationId = reply.body.conversationId as string;
    const early = await app.graphql(RateConversationForTestDocument, { conversationId, score: 3 }, bank.apiKey);
    expect(early.errors?.[0]?.extensions?.code).toBe("VALIDATION");
    await resolve(conversationId);
    const scored = await app.request(`/api/conversations/${conversationId}/satisfaction`, {
      key: bank.apiKey,
      body: { score: 3 },
    });
    expect(scored.status, JSON.stringify(scored.body)).toBe(200);
    expect(scored.body).toMatchObject({ conversation_id: conversationId, channel: "api", score: 3 });
    const changed = await app.graphql(RateConversationForTestDocument, { conversationId, score: 2 }, bank.apiKey);
    expect(changed.data!.rateConversation.score).toBe(2);
    expect(
      (await app.request(`/api/conversations/${conversationId}/satisfaction`, { key: bank.apiKey, body: { score: 0 } })).status,
    ).toBe(422);
  });

  it("feeds analytics: thumbs up and down, their rate, and the average satisfaction, per channel", async () => {
    const figures = await app.request("/api/analytics", { key: bank.apiKey });
    expect(figures.status).toBe(200);
    // Above: one api reply changed to down, one widget reply up; scores widget 5, chat app 4, api 2.
    expect(figures.body.feedback).toEqual({
      up: 1,
      down: 1,
      rate: 0.5,
      satisfaction: { asked: 3, answered: 3, average: 11 / 3 },
      by_channel: {
        api: { up: 0, down: 1, rate: 0, satisfaction: { asked: 1, answered: 1, average: 2 } },
        chatapp: { up: 0, down: 0, rate: null, satisfaction: { asked: 1, answered: 1, average: 4 } },
        widget: { up: 1, down: 0, rate: 1, satisfaction: { asked: 1, answered: 1, average: 5 } },
      },
    });
    const widgetOnly = await app.request("/api/analytics?channel=widget", { key: bank.apiKey });
    expect(widgetOnly.body.feedback).toMatchObject({ up: 1, down: 0, satisfaction: { answered: 1, average: 5 } });
  });
});
