import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { speakable } from "../../src/channels/format.js";
import { sendsThroughProvider } from "../../src/channels/registry.js";
import { twilioSignature } from "../../src/channels/twilio.js";
import { type FakeProviders, startFakeProviders } from "../fakes/providers.js";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { configureChannel, conversationMessages, conversationsOn, faqTenantOn, postForm } from "../helpers/channels.js";

// The voice channel (Twilio Voice): TwiML answers, the pipeline run within each speech step, the
// tenant's selected voice, and status callbacks that close the call's conversation.

const publicBase = "https://bot.example.com";
const authToken = "test_auth_token";
const accountSid = "AC00000000000000000000000000000001";
const twilioNumber = "+15557654321";

let providers: FakeProviders;
let app: TestApp;
let key: string;
let tenantId: string;
let calls = 0;

/** A call from `from`: every request Twilio makes for it, signed as Twilio signs them. */
function call(from: string, to = twilioNumber) {
  const callSid = `CA${String(++calls).padStart(32, "0")}`;
  const base = { AccountSid: accountSid, ApiVersion: "2010-04-01", CallSid: callSid, Direction: "inbound", From: from, To: to };
  const post = (path: string, fields: Record<string, string>, token = authToken) =>
    postForm(app, path, fields, { "x-twilio-signature": twilioSignature(token, `${publicBase}${path}`, Object.entries(fields)) });
  return {
    callSid,
    answer: (token?: string) => post("/api/v1/voice/inbound", { ...base, CallStatus: "ringing", Caller: from }, token),
    say: (turn: number, speech: string, token?: string) =>
      post(
        `/api/v1/voice/inbound?turn=${turn}`,
        { ...base, CallStatus: "in-progress", SpeechResult: speech, Confidence: "0.92" },
        token,
      ),
    silence: (turn: number) => post(`/api/v1/voice/inbound?turn=${turn}`, { ...base, CallStatus: "in-progress" }),
    status: (status: string) => post("/api/v1/voice/status", { ...base, CallStatus: status, CallDuration: "42" }),
  };
}

async function twimlOf(res: { status: number; headers: Headers; body: unknown }) {
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/xml/);
  const body = String(res.body);
  expect(body).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?><Response(\/>|>.*<\/Response>)$/s);
  return body;
}

/** The text of every <Say> of a TwiML answer. */
const saidIn = (twiml: string) =>
  [...twiml.matchAll(/<Say[^>]*>(?:<prosody[^>]*>)?(.*?)(?:<\/prosody>)?<\/Say>/g)].map((m) => m[1]!);

async function conversationOf(phone: string) {
  return (await conversationsOn(app, key, "voice")).filter((c) => c.customer_phone === phone);
}

beforeAll(async () => {
  providers = await startFakeProviders();
  app = await startTestApp({ ...providers.env, PUBLIC_BASE_URL: publicBase });
  ({ apiKey: key, tenantId } = await app.tenant("Voice Bank"));
  await configureChannel(app, key, "voice", { account_sid: accountSid, auth_token: authToken, phone_number: twilioNumber });
  const voice = await app.request("/api/tenant/voices", {
    key,
    body: { name: "Polly.Amy", language: "en-GB", speaking_rate: 1.1, greeting: "Welcome to Voice Bank. How can I help?" },
  });
  expect(voice.status).toBeLessThan(300);
  const source = await app.request("/api/knowledge/sources", {
    key,
    body: {
      type: "manual",
      title: "Cards FAQ",
      content:
        "## Card PIN\n\nTo reset your card PIN, open the app, choose **Cards**, then **Reset PIN** (see https://bank.example/pin). The new PIN works at once.",
    },
  });
  expect(source.status).toBe(201);
});

afterAll(async () => {
  await app?.close();
  await providers?.close();
});

describe("voice formatting", () => {
  it("makes an answer speakable: no markdown, lists, links or emoji", () => {
    const answer =
      "## Reset your PIN\n\n1. Open the **app** 📱\n2. Choose [Cards](https://bank.example/cards)\n- Then *Reset PIN* & confirm\n\nDetails: https://bank.example/pin.";
    expect(speakable(answer, 60)).toBe(
      "Reset your PIN. Open the app. Choose Cards. Then Reset PIN and confirm. Details: our website.",
    );
    expect(speakable("Rates rose 3.5% this year.", 60)).toBe("Rates rose 3.5% this year.");
  });

  it("keeps about sixty words, ending on a whole sentence", () => {
    const long = Array.from({ length: 20 }, (_, i) => `This is sentence number ${i + 1} of the answer.`).join(" ");
    const said = speakable(long, 60);
    expect(said.split(" ").length).toBeLessThanOrEqual(60);
    expect(said.split(" ").length).toBeGreaterThan(50);
    expect(said).toMatch(/answer\.$/);
    expect(speakable(`${"word ".repeat(80)}end.`, 60).split(" ")).toHaveLength(60);
  });

  it("reproduces the documented voice signature vector", () => {
    const params: Array<[string, string]> = [
      ["AccountSid", accountSid],
      ["CallSid", "CA00000000000000000000000000000001"],
      ["CallStatus", "in-progress"],
      ["Confidence", "0.92"],
      ["From", "+15551234567"],
      ["SpeechResult", "I need help"],
      ["To", twilioNumber],
    ];
    expect(twilioSignature(authToken, "https://bot.example.com/hooks/voice/tenant-a/gather?turn=1", params)).toBe(
      "x1nmqdEe/Jol4qq4f6B0MS4DdUY=",
    );
  });

  it("has no send: voice replies are the TwiML answers", () => {
    expect(sendsThroughProvider("voice")).toBe(false);
  });
});

describe("voice calls", () => {
  it("greets in the selected voice and listens for speech", async () => {
    const twiml = await twimlOf(await call("+15551234567").answer());
    expect(twiml).toContain(
      `<Gather input="speech" action="${publicBase}/api/v1/voice/inbound?turn=1" method="POST" speechTimeout="auto" language="en-GB">`,
    );
    expect(twiml).toContain(
      '<Say voice="Polly.Amy" language="en-GB"><prosody rate="110%">Welcome to Voice Bank. How can I help?</prosody></Say>',
    );
    expect(twiml).toMatch(/<Say[^>]*>(<prosody[^>]*>)?Goodbye\.(<\/prosody>)?<\/Say><Hangup\/><\/Response>$/);
  });

  it("answers each utterance through the pipeline in speakable words, then listens again until the caller hangs up", async () => {
    const c = call("+15551230001");
    await twimlOf(await c.answer());
    const first = await twimlOf(await c.say(1, "How do I reset my card PIN?"));
    const [answer] = saidIn(first);
    expect(answer).toMatch(/Reset PIN/);
    expect(answer).not.toMatch(/https?:|\*\*|##/);
    expect(answer!.split(" ").length).toBeLessThanOrEqual(60);
    expect(first).toContain(`action="${publicBase}/api/v1/voice/inbound?turn=2"`);

    const second = await twimlOf(await c.say(2, "Thank you"));
    expect(second).toContain(`action="${publicBase}/api/v1/voice/inbound?turn=3"`);

    const [conversation] = await conversationOf("+15551230001");
    expect(conversation!.status).toBe("open");
    const messages = await conversationMessages(app, key, conversation!.id);
    expect(messages.map((m) => [m.role, m.delivery])).toEqual([
      ["customer", null],
      ["system", null],
      ["assistant", null],
      ["customer", null],
      ["assistant", null],
    ]);
    expect(messages[0]!.content).toBe("How do I reset my card PIN?");
    expect(providers.sends).toHaveLength(0);
  });

  it("answers a retried step with the same TwiML, without asking the AI again", async () => {
    const c = call("+15551230002");
    await c.answer();
    const first = await twimlOf(await c.say(1, "How do I reset my card PIN?"));
    const [conversation] = await conversationOf("+15551230002");
    const count = (await conversationMessages(app, key, conversation!.id)).length;
    expect(await twimlOf(await c.say(1, "How do I reset my card PIN?"))).toBe(first);
    const [a, b] = await Promise.all([c.say(1, "How do I reset my card PIN?"), c.say(1, "How do I reset my card PIN?")]);
    expect(await twimlOf(a)).toBe(first);
    expect(await twimlOf(b)).toBe(first);
    expect((await conversationMessages(app, key, conversation!.id)).length).toBe(count);
  });

  it("asks again when nothing was heard", async () => {
    const c = call("+15551230003");
    await c.answer();
    const twiml = await twimlOf(await c.silence(1));
    expect(saidIn(twiml)[0]).toMatch(/did not catch that/);
    expect(twiml).toContain("inbound?turn=1");
    expect(await conversationOf("+15551230003")).toEqual([]);
  });

  it("hands over to a human when the caller asks for one, and ends the call", async () => {
    const c = call("+15551230004");
    await c.answer();
    const twiml = await twimlOf(await c.say(1, "I want to speak to a human agent please"));
    expect(saidIn(twiml).join(" ")).toMatch(/member of our team/);
    expect(twiml).toMatch(/<Hangup\/><\/Response>$/);
    expect(twiml).not.toContain("<Gather");
    const [conversation] = await conversationOf("+15551230004");
    expect(conversation!.status).toBe("escalated");
  });
});

describe("a call the assistant cannot answer at once", () => {
  const faqNumber = "+15557650001";

  beforeAll(async () => {
    await faqTenantOn(app, "FAQ Voice Bank", "voice", {
      account_sid: accountSid,
      auth_token: authToken,
      phone_number: faqNumber,
    });
  });

  it("reads out the questions the caller may have meant, and answers the one whose number the caller says", async () => {
    const c = call("+15551239001", faqNumber);
    await twimlOf(await c.answer());
    const declined = saidIn(await twimlOf(await c.say(1, "the limit for taking cash out"))).join(" ");
    expect(declined).toContain("Did you mean one of these? Number 1: How much can I withdraw from an ATM per day?");
    expect(declined).toContain("Say its number, or would you like me to connect you with one of our team?");
    const answered = saidIn(await twimlOf(await c.say(2, "The first one."))).join(" ");
    expect(answered).toContain("The daily ATM withdrawal limit is 1,000");
  });
});

describe("voice status callbacks", () => {
  it("closes the call's conversation when the call completes, once, recorded in its timeline", async () => {
    const c = call("+15551230005");
    await c.answer();
    await c.say(1, "How do I reset my card PIN?");
    expect(await twimlOf(await c.status("in-progress"))).toContain("<Response/>");
    expect((await conversationOf("+15551230005"))[0]!.status).toBe("open");
    expect(await twimlOf(await c.status("completed"))).toContain("<Response/>");
    expect(await twimlOf(await c.status("completed"))).toContain("<Response/>");
    const [conversation] = await conversationOf("+15551230005");
    expect(conversation!.status).toBe("closed");
    const events = await app.services.db.prisma.conversationEvent.findMany({ where: { conversationId: conversation!.id } });
    expect(events.map((e) => [e.fromStatus, e.toStatus, e.actor, e.reason])).toEqual([
      ["open", "closed", "system", "call completed"],
    ]);
  });

  it("leaves a conversation a human has with the humans, and another call's conversation alone", async () => {
    const handed = call("+15551230006");
    await handed.answer();
    await handed.say(1, "I want to speak to a human agent please");
    await twimlOf(await handed.status("completed"));
    expect((await conversationOf("+15551230006"))[0]!.status).toBe("escalated");

    const earlier = call("+15551230007");
    const later = call("+15551230007");
    await earlier.answer();
    await earlier.say(1, "How do I reset my card PIN?");
    await later.answer();
    await later.say(1, "Thanks, and my new PIN works at once?");
    await twimlOf(await earlier.status("no-answer"));
    const conversations = await conversationOf("+15551230007");
    expect(conversations.map((c) => c.status).sort()).toEqual(["closed", "open"]);
    const closedByNewCall = await app.services.db.prisma.conversationEvent.findMany({
      where: { tenantId, reason: "a new call started" },
    });
    expect(closedByNewCall).toHaveLength(1);
  });
});

describe("voice authentication and routing", () => {
  it("answers 401 AUTH_INVALID for a bad or missing signature and stores nothing", async () => {
    const c = call("+15551230008");
    const forged = await c.say(1, "Read me my balance", "not-the-auth-token");
    expect(forged.status).toBe(401);
    expect(forged.body.code).toBe("AUTH_INVALID");
    const unsigned = await postForm(app, "/api/v1/voice/inbound?turn=1", {
      CallSid: c.callSid,
      From: "+15551230008",
      To: twilioNumber,
      SpeechResult: "Read me my balance",
    });
    expect(unsigned.status).toBe(401);
    const statusForged = await postForm(app, "/api/v1/voice/status", {
      CallSid: c.callSid,
      From: "+15551230008",
      To: twilioNumber,
      CallStatus: "completed",
    });
    expect(statusForged.status).toBe(401);
    expect(await app.services.db.prisma.message.count({ where: { providerMessageId: { contains: c.callSid } } })).toBe(0);
  });

  it("hangs up on a call to a number no tenant has, storing nothing", async () => {
    const c = call("+15551230009", "+15550000000");
    expect(await twimlOf(await c.answer())).toContain("<Hangup/>");
    expect(await twimlOf(await c.say(1, "Hello?"))).toContain("<Hangup/>");
    expect(await app.services.db.prisma.message.count({ where: { providerMessageId: { contains: c.callSid } } })).toBe(0);
  });
});
