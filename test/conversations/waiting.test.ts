import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type FakeProviders, startFakeProviders } from "../fakes/providers.js";
import { startTestApp, type TestApp } from "../helpers/app.js";
import {
  chatappTextDelivery,
  configureChannel,
  conversationMessages,
  metaSignature,
  postForm,
  untilWebhooksSettled,
} from "../helpers/channels.js";
import { readEvents } from "../helpers/sse.js";

// Issue 13: a message written while the conversation waits for a person is acknowledged. The Chat reply says
// the team has it (handledBy), and the customer is told so once per wait, on every channel, through the
// same delivery path as any reply.

const withTheTeam = "Your message is with our team; an agent will answer here.";
const contactedLater = "Your message is with our team; an agent will contact you soon.";

let providers: FakeProviders;
let app: TestApp;
let key: string;

const appSecret = "waiting_app_secret";
const chatapp = {
  phone_number_id: "240000000000001",
  access_token: "EAAG-waiting",
  verify_token: "vt_waiting",
  app_secret: appSecret,
};
const ussd = { service_code: "*384*456#", token: "5369f9454ad30bfec0a542bc00afac15" };

beforeAll(async () => {
  providers = await startFakeProviders();
  app = await startTestApp(providers.env);
  app.startWorker();
  key = (await app.tenant("Waiting Bank")).apiKey;
  const source = await app.request("/api/knowledge/sources", {
    key,
    body: { type: "manual", title: "Cards", content: "To reset your card PIN, open the app, choose Cards, then Reset PIN." },
  });
  expect(source.status).toBe(201);
  await configureChannel(app, key, "chatapp", chatapp);
  await configureChannel(app, key, "ussd", ussd);
});
afterAll(async () => {
  await app?.close();
  await providers?.close();
});

const chat = async (message: string, conversationId?: string) => {
  const res = await app.request("/api/chat", { key, body: { message, conversationId } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};

/** The conversation's escalation that is not resolved, through the REST API. */
async function openEscalationOf(conversationId: string): Promise<string> {
  const res = await app.request("/api/escalations?limit=100", { key });
  const found = res.body.escalations.find((e: { conversation_id: string; status: string }) => {
    return e.conversation_id === conversationId && e.status !== "resolved";
  });
  expect(found).toBeDefined();
  return found.id;
}

const waitingNotices = async (conversationId: string) =>
  (await conversationMessages(app, key, conversationId)).filter((m) => m.content === withTheTeam || m.content === contactedLater);

describe("/api/chat while the conversation waits for a person", () => {
  it("tells the customer once per wait that the team has the message, and says handledBy team every time", async () => {
    const asked = await chat("I want to speak to a real person please");
    expect(asked).toMatchObject({ handledBy: "team", metadata: { agentType: "handoff" } });
    const conversationId = asked.conversationId;

    const first = await chat("How do I reset my PIN?", conversationId);
    expect(first).toMatchObject({
      response: withTheTeam,
      messageId: expect.stringMatching(/^msg_/),
      handledBy: "team",
      metadata: { agentType: "human", tokensUsed: 0 },
    });
    const second = await chat("Hello?", conversationId);
    expect(second).toMatchObject({ response: "", messageId: null, handledBy: "team", metadata: { agentType: "human" } });

    const transcript = await conversationMessages(app, key, conversationId);
    expect(transcript.map((m) => [m.role, m.content])).toEqual([
      ["customer", "I want to speak to a real person please"],
      ["system", expect.stringContaining("an AI and not a person")],
      ["assistant", expect.stringContaining("member of our team")],
      ["customer", "How do I reset my PIN?"],
      ["assistant", withTheTeam],
      ["customer", "Hello?"],
    ]);
    expect(transcript[4]!.id).toBe(first.messageId);
  });

  it("streams the notice as meta, delta and done, then only done with handledBy team", async () => {
    const { conversationId } = await chat("I want to speak to a real person please");
    const stream = async (message: string) => {
      const res = await fetch(`${app.url}/api/chat`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json", accept: "text/event-stream" },
        body: JSON.stringify({ message, conversationId }),
      });
      return (await readEvents(res)).map((e) => ({ event: e.event, data: JSON.parse(e.data) }));
    };
    const told = await stream("Is anyone there?");
    expect(told.map((e) => e.event)).toEqual(["meta", "delta", "done"]);
    expect(told[1]!.data).toEqual({ text: withTheTeam });
    expect(told[2]!.data).toMatchObject({ response: withTheTeam, handledBy: "team", messageId: told[0]!.data.messageId });
    const quiet = await stream("Still waiting");
    expect(quiet).toEqual([
      { event: "done", data: expect.objectContaining({ response: "", messageId: null, handledBy: "team" }) },
    ]);
  });

  it("says nothing more once an agent has answered, and tells the customer again in the next wait", async () => {
    const { conversationId } = await chat("I want to speak to a real person please");
    expect((await chat("Hi?", conversationId)).response).toBe(withTheTeam);
    const agent = await app.request(`/api/conversations/${conversationId}/messages`, {
      key,
      body: { content: "Hello, Sam here. How can I help?" },
    });
    expect(agent.status, JSON.stringify(agent.body)).toBe(201);
    expect(await chat("My card PIN, please", conversationId)).toMatchObject({ response: "", handledBy: "team" });

    const resolved = await app.request("/api/escalations", {
      method: "PUT",
      key,
      body: { id: await openEscalationOf(conversationId), status: "resolved" },
    });
    expect(resolved.status, JSON.stringify(resolved.body)).toBe(200);
    const answered = await chat("How do I reset my card PIN?", conversationId);
    expect(answered).toMatchObject({ handledBy: "ai", messageId: expect.stringMatching(/^msg_/) });
    expect(answered.response).toContain("Reset PIN");

    expect((await chat("I want to speak to a real person please", conversationId)).handledBy).toBe("team");
    expect((await chat("Hi again?", conversationId)).response).toBe(withTheTeam);
    expect(await waitingNotices(conversationId)).toHaveLength(2);
  });
});

describe("the chat app while the conversation waits for a person", () => {
  it("sends the notice through the provider once, however many messages the customer writes", async () => {
    const customer = "15557770001";
    const write = async (text: string) => {
      const { body: raw } = chatappTextDelivery(chatapp.phone_number_id, text, customer);
      const res = await app.request("/api/channels/chatapp", {
        body: raw,
        headers: { "content-type": "application/json", "x-hub-signature-256": metaSignature(raw, appSecret) },
      });
      expect(res.status).toBe(200);
      await untilWebhooksSettled(app);
    };
    const sendsTo = () =>
      providers.sends.filter((s) => s.path === `/graph/${chatapp.phone_number_id}/messages`).map((s) => s.body.text.body);

    await write("Can I speak to a human please");
    await write("I lost my card");
    await write("Hello?");
    await write("Anyone?");
    expect(sendsTo()).toEqual([expect.stringContaining("member of our team"), withTheTeam]);

    const conversations = await app.request(`/api/conversations?channel=chatapp&q=${customer}`, { key });
    const [conversation] = conversations.body.conversations;
    // the AI disclosure opens the transcript beside the four customer messages and two replies
    expect(conversation).toMatchObject({ status: "escalated", message_count: 7 });
    const [notice] = await waitingNotices(conversation.id);
    expect(notice).toMatchObject({ role: "assistant", delivery: { status: "sent", attempts: 1 } });
  });
});

describe("USSD while the conversation waits for a person", () => {
  let sessions = 0;
  const hop = (sessionId: string, phoneNumber: string, text: string) =>
    postForm(app, `/api/channels/ussd?token=${ussd.token}`, {
      sessionId,
      serviceCode: ussd.service_code,
      phoneNumber,
      networkCode: "63902",
      text,
    });
  /** A session that asks one question (menu choice 1) and returns the final screen. */
  const ask = async (phoneNumber: string, question: string) => {
    const sessionId = `ATUid_waiting${++sessions}`;
    await hop(sessionId, phoneNumber, "");
    await hop(sessionId, phoneNumber, "1");
    const res = await hop(sessionId, phoneNumber, `1*${question}`);
    expect(res.status).toBe(200);
    return String(res.body);
  };

  it("answers every screen with the notice, stored once per wait, where an agent will reach the customer", async () => {
    const phone = "+254711000999";
    const handOver = `ATUid_waiting${++sessions}`;
    await hop(handOver, phone, "");
    expect(String((await hop(handOver, phone, "2")).body)).toMatch(/^END .*member of our team/);

    expect(await ask(phone, "Hello?")).toBe(`END ${contactedLater}`);
    expect(await ask(phone, "Still there?")).toBe(`END ${contactedLater}`);

    const conversations = await app.request("/api/conversations?channel=ussd", { key });
    const [conversation] = conversations.body.conversations;
    expect(conversation.status).toBe("escalated");
    const transcript = await conversationMessages(app, key, conversation.id);
    expect(transcript.filter((m) => m.role === "customer")).toHaveLength(3);
    expect(await waitingNotices(conversation.id)).toEqual([
      expect.objectContaining({ role: "assistant", content: contactedLater }),
    ]);
  });
});

it("gives two messages arriving together one notice between them", async () => {
  const { conversationId } = await chat("I want to speak to a real person please");
  const replies = await Promise.all([chat("One", conversationId), chat("Two", conversationId), chat("Three", conversationId)]);
  expect(replies.map((r) => r.response).sort()).toEqual(["", "", withTheTeam]);
  await vi.waitFor(async () => expect(await waitingNotices(conversationId)).toHaveLength(1));
});
