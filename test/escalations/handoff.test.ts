import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type FakeProviders, startFakeProviders } from "../fakes/providers.js";
import {
  AnalyticsForTestDocument,
  EscalationsForTestDocument,
  LoginDocument,
  ReplyForTestDocument,
  TimelineForTestDocument,
  UpdateEscalationForTestDocument,
} from "../generated.js";
import { addAgent, agentPassword, type InboxFeed, openInbox } from "../helpers/agents.js";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { configureChannel, conversationMessages, metaJson, metaSignature } from "../helpers/channels.js";
import { redisSubscribed } from "../helpers/realtime.js";
import { seedConversation } from "../helpers/seed.js";
import { readEvents } from "../helpers/sse.js";

// The hand-off round trip (issue 7): a customer asks for a human, an agent logged in by GraphQL sees it live,
// replies on the customer's own channel, resolves, and the AI answers the next question.
let providers: FakeProviders;
let app: TestApp;

const site = "https://www.handoff-bank.example";
const faq = "Cards\n\nTo reset your card PIN, open the mobile app, choose Cards, then Reset PIN. The new PIN works at once.";
const appSecret = "handoff_app_secret";
const chatapp = {
  phone_number_id: "230000000000001",
  access_token: "EAAG-handoff-token",
  verify_token: "vt_handoff",
  app_secret: appSecret,
};

beforeAll(async () => {
  providers = await startFakeProviders();
  app = await startTestApp({ ...providers.env, PUBLIC_BASE_URL: "https://parley.handoff-bank.example" });
  app.startWorker();
});
afterAll(async () => {
  await app?.close();
  await providers?.close();
});

/** A bank with a knowledge base the AI answers from, and one online agent logged in through GraphQL. */
async function bankWithAgent(name: string) {
  const bank = await app.tenant(name);
  const source = await app.request("/api/knowledge/sources", {
    key: bank.apiKey,
    body: { type: "manual", title: "FAQ", content: faq },
  });
  expect(source.status).toBe(201);
  const created = await addAgent(app, bank.apiKey, { name: "Sam", availability: "online" });
  const login = await app.graphql(LoginDocument, { email: created.email, password: agentPassword }, null);
  const agent = { id: created.id, token: login.data!.login.token! };
  const inbox = await openInbox(app, agent.token, bank.tenantId);
  return { bank, agent, inbox };
}

async function expectHandedOver(inbox: InboxFeed, conversationId: string, agentId: string) {
  const escalated = await inbox.next((e) => e.type === "escalated" && e.conversationId === conversationId);
  expect(escalated.escalation).toMatchObject({ reason: "customer_request" });
  const assigned = await inbox.next((e) => e.type === "assigned" && e.conversationId === conversationId);
  expect(assigned.escalation).toMatchObject({ status: "assigned", assignee: { id: agentId } });
  return assigned.escalation!.id;
}

describe("hand-off on the widget", () => {
  // A dozen steps through the widget, the inbox and analytics: on a loaded machine, more than the default 30 s.
  it("goes from the AI to an agent and back, live on both sides, and analytics show it", async () => {
    const { bank, agent, inbox } = await bankWithAgent("Widget Handoff Bank");
    const configured = await app.request("/api/tenant/channels/widget", {
      method: "PUT",
      key: bank.apiKey,
      body: { settings: { allowed_origins: [site] } },
    });
    expect(configured.status, JSON.stringify(configured.body)).toBeLessThan(300);
    const token = (await app.request("/api/widget/tokens", { key: bank.apiKey, body: {} })).body.token as string;
    const widget = (visitor?: string) => ({
      "x-widget-token": token,
      origin: site,
      ...(visitor ? { "x-widget-visitor": visitor } : {}),
    });
    const visitor = (await app.request("/api/v1/widget/init", { body: {}, headers: widget() })).body.visitor_id as string;
    const send = (message: string) => app.request("/api/v1/widget/message", { body: { message }, headers: widget(visitor) });

    const asked = await send("I want to talk to a human agent please");
    expect(asked.body.metadata.agentType).toBe("handoff");
    const conversationId = asked.body.conversationId as string;
    const escalationId = await expectHandedOver(inbox, conversationId, agent.id);

    const feed = await fetch(`${app.url}/api/v1/widget/events?conversation_id=${conversationId}`, { headers: widget(visitor) });
    expect(feed.status).toBe(200);
    await redisSubscribed(app, `conversation:message:${conversationId}`);
    // The AI is silent while the visitor waits: the reply says the team has the message (once per wait).
    const waiting = await send("Are you there?");
    expect(waiting.body).toMatchObject({ handledBy: "team", response: expect.stringContaining("with our team") });
    const told = await inbox.next((e) => e.type === "message" && e.conversationId === conversationId);
    expect(told.message).toMatchObject({ role: "customer", content: "Are you there?" });

    const reply = await app.graphql(
      ReplyForTestDocument,
      { conversationId, content: "Hi, this is Sam. How can I help?" },
      agent.token,
    );
    expect(reply.errors).toBeUndefined();
    expect(reply.data!.replyToConversation).toMatchObject({ role: "agent", metadata: { agentId: agent.id, agentName: "Sam" } });
    const events = await readEvents(feed, (seen) => seen.some((e) => e.data.includes("this is Sam")));
    expect(JSON.parse(events.at(-1)!.data)).toMatchObject({ role: "agent", content: "Hi, this is Sam. How can I help?" });

    const resolved = await app.graphql(UpdateEscalationForTestDocument, { id: escalationId, status: "resolved" }, agent.token);
    expect(resolved.data!.updateEscalation).toMatchObject({ status: "resolved", firstResponseAt: expect.any(String) });
    const next = await send("How do I reset my card PIN?");
    expect(next.body.conversationId).toBe(conversationId);
    expect(next.body.response).toContain("Reset PIN");

    const figures = await app.request("/api/analytics?channel=widget", { key: agent.token });
    expect(figures.status).toBe(200);
    expect(figures.body).toMatchObject({
      conversations: { total: 1, by_channel: { widget: 1 }, by_status: { open: 1 } },
      messages: { customer: 3, agent: 1 },
      ai_resolved: 0,
      escalated: 1,
      escalation_rate: 1,
      escalations: { total: 1, by_reason: { customer_request: 1 } },
      first_response_time: { count: 1 },
      resolution_time: { count: 1 },
    });
    expect(figures.body.first_response_time.median_seconds).toBeGreaterThanOrEqual(0);
    inbox.dispose();
  }, 120_000);
});

describe("hand-off on the chat app", () => {
  it("delivers the agent's reply through the provider to the customer, and the AI answers again once resolved", async () => {
    const { bank, agent, inbox } = await bankWithAgent("Chatapp Handoff Bank");
    await configureChannel(app, bank.apiKey, "chatapp", chatapp);
    const customer = "15559876543";
    let sequence = 0;
    const write = (body: string) => {
      const raw = metaJson({
        object: "whatsapp_business_account",
        entry: [
          {
            id: "1",
            changes: [
              {
                field: "messages",
                value: {
                  messaging_product: "whatsapp",
                  metadata: { display_phone_number: "15550001111", phone_number_id: chatapp.phone_number_id },
                  messages: [
                    { from: customer, id: `wamid.HANDOFF${++sequence}`, timestamp: "1700000000", type: "text", text: { body } },
                  ],
                },
              },
            ],
          },
        ],
      });
      return app.request("/api/channels/chatapp", {
        body: raw,
        headers: { "content-type": "application/json", "x-hub-signature-256": metaSignature(raw, appSecret) },
      });
    };
    const sendsTo = () => providers.sends.filter((s) => s.path === `/graph/${chatapp.phone_number_id}/messages`);

    expect((await write("Can I speak to a human please")).status).toBe(200);
    const notice = await vi.waitFor(() => {
      expect(sendsTo()).toHaveLength(1);
      return sendsTo()[0]!;
    });
    expect(notice.body.text.body).toContain("member of our team");
    const escalated = await inbox.next((e) => e.type === "escalated");
    const conversationId = escalated.conversationId;
    await expectHandedOver(inbox, conversationId, agent.id);

    const reply = await app.request(`/api/conversations/${conversationId}/messages`, {
      key: agent.token,
      body: { content: "Hello, Sam here: I can help with that." },
    });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ role: "agent", content: "Hello, Sam here: I can help with that." });
    const delivered = await vi.waitFor(() => {
      expect(sendsTo()).toHaveLength(2);
      return sendsTo()[1]!;
    });
    expect(delivered.headers.authorization).toBe(`Bearer ${chatapp.access_token}`);
    expect(delivered.body).toMatchObject({
      to: customer,
      type: "text",
      text: { body: "Hello, Sam here: I can help with that." },
    });
    await vi.waitFor(async () => {
      const stored = (await conversationMessages(app, bank.apiKey, conversationId)).at(-1);
      expect(stored).toMatchObject({ role: "agent", delivery: { status: "sent", attempts: 1 } });
    });

    expect((await write("Thanks, my card is blocked")).status).toBe(200);
    await inbox.next((e) => e.type === "message" && e.message?.content === "Thanks, my card is blocked");
    expect(sendsTo()).toHaveLength(2);

    const escalation = (await app.graphql(EscalationsForTestDocument, { mine: true }, agent.token)).data!.escalations.items[0]!;
    const resolved = await app.request("/api/escalations", {
      method: "PUT",
      key: agent.token,
      body: { id: escalation.id, status: "resolved", note: "card unblocked" },
    });
    expect(resolved.status).toBe(200);
    await inbox.next((e) => e.type === "resolved" && e.conversationId === conversationId);
    // Resolved: the customer is asked for a satisfaction score (test/feedback), then writes again.
    const question = await vi.waitFor(() => {
      expect(sendsTo()).toHaveLength(3);
      return sendsTo()[2]!;
    });
    expect(question.body.text.body).toMatch(/^How satisfied are you/);

    expect((await write("How do I reset my card PIN?")).status).toBe(200);
    const answer = await vi.waitFor(() => {
      expect(sendsTo()).toHaveLength(4);
      return sendsTo()[3]!;
    });
    expect(answer.body.text.body).toContain("Reset PIN");

    const timeline = await app.graphql(TimelineForTestDocument, { id: conversationId }, agent.token);
    expect(timeline.data!.conversation.timeline.map((e) => [e.fromStatus, e.toStatus, e.actor])).toEqual([
      ["open", "escalated", "ai"],
      ["escalated", "assigned", "system"],
      ["assigned", "resolved", agent.id],
      ["resolved", "open", "customer"],
    ]);
    const figures = await app.graphql(AnalyticsForTestDocument, { channel: "chatapp" }, bank.apiKey);
    expect(figures.data!.analytics).toMatchObject({ conversations: { total: 1 }, escalationRate: 1, aiResolutionRate: 0 });
    inbox.dispose();
  });
});

describe("hand-off on USSD and voice", () => {
  // A USSD session or a call is over before a person can answer: the reply follows by SMS.
  it.each([
    { channel: "ussd", customer: "+254700000001", number: "+15550009998" },
    { channel: "voice", customer: "+254700000002", number: "+15550009999" },
  ])(
    "sends the agent's reply to a $channel customer as an SMS when the tenant has an SMS channel, and otherwise asks for a call back",
    async ({ channel, customer, number }) => {
      const bank = await app.tenant(`${channel} Handoff Bank`);
      const conversationId = await seedConversation(app.services, bank.tenantId, {
        channel,
        customerPhone: customer,
        customerId: customer,
      });
      const escalated = await app.request("/api/escalations", { key: bank.apiKey, body: { conversation_id: conversationId } });
      expect(escalated.status).toBe(201);

      const unsent = await app.request(`/api/conversations/${conversationId}/messages`, {
        key: bank.apiKey,
        body: { content: "We fixed it." },
      });
      expect(unsent.status).toBe(201);
      expect(unsent.body.delivery).toMatchObject({
        status: "failed",
        error: expect.stringContaining(`call them back on ${customer}`),
      });

      await configureChannel(
        app,
        bank.apiKey,
        "sms",
        { account_sid: "AC00000000000000000000000000000009", auth_token: "sms_auth_token", phone_number: number },
        { provider: "twilio" },
      );
      const before = providers.sends.length;
      const sent = await app.request(`/api/conversations/${conversationId}/messages`, {
        key: bank.apiKey,
        body: { content: "Your card is unblocked." },
      });
      expect(sent.status).toBe(201);
      const [sms] = (await providers.waitForSends(before + 1)).slice(before);
      expect(sms!.path).toMatch(/\/twilio\/2010-04-01\/Accounts\/AC0+9\/Messages\.json$/);
      expect(sms!.body).toMatchObject({ To: customer, From: number, Body: "Your card is unblocked." });
    },
  );
});

describe("the inbox across instances", () => {
  it.skipIf(!process.env.REDIS_URL || !process.env.DATABASE_URL)(
    "tells an agent subscribed on one instance of an escalation made on another, through Redis",
    async () => {
      const other = await startTestApp({ ...providers.env }, { database: app.database });
      try {
        const bank = await app.tenant("Two Instance Bank");
        const agent = await addAgent(app, bank.apiKey, { availability: "online" });
        const inbox = await openInbox(other, agent.token, bank.tenantId);
        const asked = await app.request("/api/chat", {
          key: bank.apiKey,
          body: { message: "I want to speak to a real person please" },
        });
        const event = await inbox.next((e) => e.type === "escalated");
        expect(event.conversationId).toBe(asked.body.conversationId);
        await inbox.next((e) => e.type === "assigned" && e.escalation?.assignee?.id === agent.id);
        inbox.dispose();
      } finally {
        await other.close();
      }
    },
    120_000,
  );
});

it("tells an agent only of their own tenant's escalations", async () => {
  const quiet = await bankWithAgent("Quiet Bank");
  const noisy = await bankWithAgent("Noisy Bank");
  const asked = await app.request("/api/chat", {
    key: noisy.bank.apiKey,
    body: { message: "I want to speak to a real person please" },
  });
  await noisy.inbox.next((e) => e.type === "escalated" && e.conversationId === asked.body.conversationId);
  expect(quiet.inbox.events).toEqual([]);
  quiet.inbox.dispose();
  noisy.inbox.dispose();
});
