import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { twilioSignature } from "../../src/channels/twilio.js";
import { type FakeProviders, startFakeProviders } from "../fakes/providers.js";
import { SetDisclosureDocument } from "../generated.js";
import { startTestApp, type TestApp } from "../helpers/app.js";
import {
  chatappMessageEvent,
  configureChannel,
  conversationMessages,
  conversationOf,
  metaSignature,
  postForm,
} from "../helpers/channels.js";
import { readEvents } from "../helpers/sse.js";

// The AI disclosure (issue 12, item 6): every conversation starts by telling the customer they talk to an AI, on
// every channel, and the transcript keeps it as a message of its own.

const publicBase = "https://bot.disclosure-bank.example";
const site = "https://www.disclosure-bank.example";
const faq = "Cards\n\nTo reset your card PIN, open the mobile app, choose Cards, then Reset PIN. The new PIN works at once.";
const defaultLine = (bank: string, verb = "chatting") =>
  `You are ${verb} with ${bank}'s virtual assistant, an AI and not a person. You can ask for a person at any time.`;
const chatapp = {
  phone_number_id: "240000000000001",
  access_token: "EAAG-disclosure-token",
  verify_token: "vt_disclosure",
  app_secret: "disclosure_app_secret",
};
const ussdToken = "0123456789abcdef0123456789abcdef";
const twilio = { account_sid: "AC00000000000000000000000000000012", auth_token: "disclosure_auth", phone_number: "+15557650012" };

let providers: FakeProviders;
let app: TestApp;
let bank: { tenantId: string; apiKey: string };

beforeAll(async () => {
  providers = await startFakeProviders();
  app = await startTestApp({ ...providers.env, PUBLIC_BASE_URL: publicBase });
  bank = await app.tenant("Disclosure Bank");
  const source = await app.request("/api/knowledge/sources", {
    key: bank.apiKey,
    body: { type: "manual", title: "FAQ", content: faq },
  });
  expect(source.status).toBe(201);
  await configureChannel(app, bank.apiKey, "chatapp", chatapp);
  await configureChannel(app, bank.apiKey, "ussd", { service_code: "*384*55#", token: ussdToken });
  await configureChannel(app, bank.apiKey, "voice", twilio);
  await configureChannel(app, bank.apiKey, "widget", {}, { allowed_origins: [site] });
  app.startWorker();
});
afterAll(async () => {
  await app?.close();
  await providers?.close();
});

const chat = (key: string, message: string, conversationId?: string) =>
  app.request("/api/chat", { key, body: { message, conversationId } });

/** The stored disclosure messages of a conversation, and the rest. */
async function transcript(key: string, conversationId: string) {
  const messages = await conversationMessages(app, key, conversationId);
  return {
    messages,
    disclosures: messages.filter((m) => m.metadata.kind === "disclosure"),
  };
}

function postChatapp(from: string, id: string, body: string) {
  const raw = chatappMessageEvent(chatapp.phone_number_id, { from, id, timestamp: "1700000000", type: "text", text: { body } });
  return app.request("/api/channels/chatapp", {
    body: raw,
    headers: { "content-type": "application/json", "x-hub-signature-256": metaSignature(raw, chatapp.app_secret) },
  });
}

describe("the AI disclosure through the API", () => {
  it("heads the first reply only, and is stored as a system message before it", async () => {
    const first = await chat(bank.apiKey, "How do I reset my card PIN?");
    expect(first.status).toBe(200);
    expect(first.body.response).toMatch(new RegExp(`^${defaultLine("Disclosure Bank").replace(/[.?']/g, "\\$&")}\n\n`));
    expect(first.body.response).toContain("Reset PIN");
    const second = await chat(bank.apiKey, "And how do I reset my card PIN again?", first.body.conversationId);
    expect(second.body.response).not.toContain("an AI and not a person");

    const { messages, disclosures } = await transcript(bank.apiKey, first.body.conversationId);
    expect(messages.map((m) => m.role)).toEqual(["customer", "system", "assistant", "customer", "assistant"]);
    expect(disclosures).toHaveLength(1);
    expect(disclosures[0]).toMatchObject({
      role: "system",
      content: defaultLine("Disclosure Bank"),
      metadata: { kind: "disclosure", intent: "ai_disclosure" },
      delivery: null,
    });
  });

  it("is streamed first, after the ids, when the reply is streamed", async () => {
    const res = await fetch(`${app.url}/api/chat`, {
      method: "POST",
      headers: { authorization: `Bearer ${bank.apiKey}`, "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ message: "How do I reset my card PIN?" }),
    });
    const events = await readEvents(res);
    expect(events.map((e) => e.event).slice(0, 2)).toEqual(["meta", "delta"]);
    expect(JSON.parse(events[1]!.data).text).toBe(`${defaultLine("Disclosure Bank")}\n\n`);
    const deltas = events.filter((e) => e.event === "delta").map((e) => JSON.parse(e.data).text as string);
    expect(deltas.join("")).toBe(JSON.parse(events.at(-1)!.data).response);
  });

  it("tells one disclosure when two first messages of a conversation are answered at once", async () => {
    const started = await chat(bank.apiKey, "hello");
    const conversationId = started.body.conversationId as string;
    // A conversation whose first run died before it told the disclosure: the next two messages race to tell it.
    await app.services.db.prisma.message.deleteMany({ where: { conversationId, role: "system" } });
    await app.services.db.prisma.conversation.update({ where: { id: conversationId }, data: { disclosedAt: null } });
    const replies = await Promise.all([
      chat(bank.apiKey, "How do I reset my card PIN?", conversationId),
      chat(bank.apiKey, "Where do I reset my card PIN?", conversationId),
    ]);
    expect(replies.map((r) => r.status)).toEqual([200, 200]);
    expect(replies.filter((r) => r.body.response.startsWith(defaultLine("Disclosure Bank")))).toHaveLength(1);
    expect((await transcript(bank.apiKey, conversationId)).disclosures).toHaveLength(1);
  });
});

describe("the tenant's disclosure setting", () => {
  it("takes the bank's own line and assistant name, resets to the default with null, and is off only when set so", async () => {
    const other = await app.tenant("Setting Bank");
    const named = await app.graphql(SetDisclosureDocument, { assistantName: "Ava" }, other.apiKey);
    expect(named.data!.updateTenant.aiDisclosure).toBe(
      "You are chatting with Ava, an AI and not a person. You can ask for a person at any time.",
    );
    const own = "Hi, I'm Ava, Setting Bank's AI assistant (not a person). Type AGENT for a person.";
    expect((await app.graphql(SetDisclosureDocument, { aiDisclosure: own }, other.apiKey)).data!.updateTenant.aiDisclosure).toBe(
      own,
    );
    expect((await chat(other.apiKey, "hello")).body.response.startsWith(`${own}\n\n`)).toBe(true);

    const empty = await app.graphql(SetDisclosureDocument, { aiDisclosure: "   " }, other.apiKey);
    expect(empty.errors?.[0]?.extensions?.code).toBe("VALIDATION");
    expect(empty.errors?.[0]?.message).toMatch(/aiDisclosureEnabled/);
    const viewer = await app.keyFor(other.tenantId, "viewer");
    expect((await app.graphql(SetDisclosureDocument, { aiDisclosureEnabled: false }, viewer)).errors?.[0]?.extensions?.code).toBe(
      "FORBIDDEN",
    );

    const reset = await app.graphql(SetDisclosureDocument, { aiDisclosure: null, assistantName: null }, other.apiKey);
    expect(reset.data!.updateTenant.aiDisclosure).toBe(defaultLine("Setting Bank"));

    const off = await app.graphql(SetDisclosureDocument, { aiDisclosureEnabled: false }, other.apiKey);
    expect(off.data!.updateTenant.aiDisclosure).toBeNull();
    const quiet = await chat(other.apiKey, "hello there");
    expect(quiet.body.response).not.toContain("not a person");
    expect((await transcript(other.apiKey, quiet.body.conversationId)).disclosures).toEqual([]);
  });
});

describe("the AI disclosure on the channels", () => {
  it("on the widget: shown before the first message, stored on its own, and not repeated inside the reply", async () => {
    const token = (await app.request("/api/widget/tokens", { key: bank.apiKey, body: {} })).body.token as string;
    const headers = (visitor?: string) => ({
      "x-widget-token": token,
      origin: site,
      ...(visitor ? { "x-widget-visitor": visitor } : {}),
    });
    const init = await app.request("/api/v1/widget/init", { body: {}, headers: headers() });
    expect(init.body.config.disclosure).toBe(defaultLine("Disclosure Bank"));
    const visitor = init.body.visitor_id as string;
    const reply = await app.request("/api/v1/widget/message", {
      body: { message: "How do I reset my card PIN?" },
      headers: headers(visitor),
    });
    expect(reply.body.response).not.toContain("not a person");
    const resumed = await app.request("/api/v1/widget/init", { body: {}, headers: headers(visitor) });
    expect(resumed.body.messages.map((m: { role: string; kind: string | null }) => [m.role, m.kind])).toEqual([
      ["customer", null],
      ["system", "disclosure"],
      ["assistant", null],
    ]);
  });

  it("on the chat app: at the head of the first message sent, and only of the first", async () => {
    const before = providers.sends.length;
    expect((await postChatapp("15550101010", "wamid.DISC1", "How do I reset my card PIN?")).status).toBe(200);
    const [first] = (await providers.waitForSends(before + 1)).slice(before);
    expect(first!.body.text.body.startsWith(`${defaultLine("Disclosure Bank")}\n\n`)).toBe(true);
    expect((await postChatapp("15550101010", "wamid.DISC2", "Thanks, and where is Reset PIN?")).status).toBe(200);
    const [second] = (await providers.waitForSends(before + 2)).slice(before + 1);
    expect(second!.body.text.body).not.toContain("not a person");

    const conversation = await conversationOf(app, bank.apiKey, "chatapp", "15550101010");
    const { messages, disclosures } = await transcript(bank.apiKey, conversation.id);
    const firstReply = messages.find((m) => m.role === "assistant")!;
    expect(disclosures).toHaveLength(1);
    expect(disclosures[0]!.metadata.sentWith).toBe(firstReply.id);
    expect(first!.body.text.body).toBe(`${disclosures[0]!.content}\n\n${firstReply.content}`);
  });

  it("on USSD: on the first answer's screens, within 182 characters each", async () => {
    const hop = (text: string) =>
      postForm(app, `/api/channels/ussd?token=${ussdToken}`, {
        sessionId: "ATUid_disclosure01",
        serviceCode: "*384*55#",
        phoneNumber: "+254711000901",
        networkCode: "63902",
        text,
      });
    await hop("");
    await hop("1");
    const screen = String((await hop("1*How do I reset my card PIN?")).body);
    expect(screen).toMatch(/^CON You are chatting with Disclosure Bank's virtual assistant, an AI and not a person\./);
    expect(Array.from(screen.slice(4)).length).toBeLessThanOrEqual(182);
  });

  it("on voice: said first, in words for a caller, before the answer", async () => {
    const callSid = "CA000000000000000000000000000disc1";
    const fields = {
      AccountSid: twilio.account_sid,
      CallSid: callSid,
      From: "+15551239001",
      To: twilio.phone_number,
      CallStatus: "in-progress",
      SpeechResult: "How do I reset my card PIN?",
    };
    const path = "/api/v1/voice/inbound?turn=1";
    const signature = twilioSignature(twilio.auth_token, `${publicBase}${path}`, Object.entries(fields));
    const res = await postForm(app, path, fields, { "x-twilio-signature": signature });
    expect(res.status).toBe(200);
    const said = String(res.body).match(/<Say>(.*?)<\/Say>/)![1]!;
    expect(said.startsWith(defaultLine("Disclosure Bank", "speaking").replace(/'/g, "&apos;"))).toBe(true);
    expect(said).toContain("Reset PIN");
    await vi.waitFor(async () => {
      const conversation = await conversationOf(app, bank.apiKey, "voice", "15551239001");
      expect((await transcript(bank.apiKey, conversation.id)).disclosures).toHaveLength(1);
    });
  });
});
