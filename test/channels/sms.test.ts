import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { fitSmsSegments, gsmSafe, smsSegments } from "../../src/channels/format.js";
import { sms } from "../../src/channels/sms.js";
import { twilioSignature } from "../../src/channels/twilio.js";
import { type FakeProviders, startFakeProviders } from "../fakes/providers.js";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { configureChannel, conversationMessages, conversationsOn, postForm } from "../helpers/channels.js";

// The SMS channel: Twilio (signed form posts, routed by `To`) and Africa's Talking (the channel's URL
// token) on one path, replies through each provider's send API. Vectors from ../shared/providers/.

const publicBase = "https://bot.example.com";
const smsUrl = `${publicBase}/api/channels/sms`;
const authToken = "test_auth_token";
const twilioNumber = "+15557654321";
const accountSid = "AC00000000000000000000000000000001";
// The AT document's path-token vector, used as this channel's token.
const atToken = "4369f9454ad30bfec0a542bc00afac14";

let providers: FakeProviders;
let app: TestApp;
let key: string;
let tenantId: string;
let atKey: string;

function twilioMessage(sid: string, from: string, body: string, extra: Record<string, string> = {}) {
  return {
    ToCountry: "US",
    SmsMessageSid: sid,
    NumMedia: "0",
    SmsSid: sid,
    SmsStatus: "received",
    Body: body,
    To: twilioNumber,
    NumSegments: "1",
    MessageSid: sid,
    AccountSid: accountSid,
    From: from,
    ApiVersion: "2010-04-01",
    ...extra,
  };
}

const signed = (fields: Record<string, string>, token = authToken, url = smsUrl) => ({
  "x-twilio-signature": twilioSignature(token, url, Object.entries(fields)),
});

const postTwilio = (fields: Record<string, string>, headers = signed(fields)) =>
  postForm(app, "/api/channels/sms", fields, headers);

function atMessage(id: string, from: string, text: string) {
  return { linkId: "", text, to: "22384", id, date: "2026-11-23 10:00:00", from };
}

const postAt = (fields: Record<string, string>, token = atToken) =>
  postForm(app, `/api/channels/sms?token=${encodeURIComponent(token)}`, fields);

const stored = async (providerMessageId: string) =>
  (await app.services.db.prisma.message.count({ where: { providerMessageId: { endsWith: `:${providerMessageId}` } } })) +
  (await app.services.db.prisma.job.count({ where: { dedupeKey: { endsWith: `:${providerMessageId}` } } }));

async function settled() {
  await vi.waitFor(
    async () => expect(await app.services.jobs.depth()).not.toContainEqual(expect.objectContaining({ status: "pending" })),
    { timeout: 10_000 },
  );
}

async function replyTo(phone: string) {
  const conversation = await vi.waitFor(async () => {
    const found = (await conversationsOn(app, key, "sms")).find((c) => c.customer_phone === phone);
    expect(found).toBeDefined();
    return found!;
  });
  return vi.waitFor(async () => {
    const reply = (await conversationMessages(app, key, conversation.id)).find((m) => m.role === "assistant");
    expect(reply).toBeDefined();
    return reply!;
  });
}

beforeAll(async () => {
  providers = await startFakeProviders();
  app = await startTestApp({ ...providers.env, PUBLIC_BASE_URL: publicBase });
  ({ apiKey: key, tenantId } = await app.tenant("Sms Bank"));
  const twilioChannel = await configureChannel(
    app,
    key,
    "sms",
    { account_sid: accountSid, auth_token: authToken, phone_number: "+1 (555) 765-4321" },
    { provider: "twilio" },
  );
  expect(twilioChannel.webhook_url).toBe(`${publicBase}/api/channels/sms`);
  ({ apiKey: atKey } = await app.tenant("Nairobi Bank"));
  const atChannel = await configureChannel(
    app,
    atKey,
    "sms",
    { username: "sandbox", api_key: "atsk_test_api_key_0001", shortcode: "22384", token: atToken },
    { provider: "africastalking" },
  );
  // The callback URL to register with Africa's Talking: the token is the tenant's secret, never read back.
  expect(atChannel.webhook_url).toBe(`${publicBase}/api/channels/sms?token={token}`);
  for (const k of [key, atKey]) {
    const source = await app.request("/api/knowledge/sources", {
      key: k,
      body: {
        type: "manual",
        title: "Cards FAQ",
        content:
          "To reset your card PIN, open the app, choose Cards, then Reset PIN. The new PIN works at once. " +
          "If your card is lost or stolen, freeze it in the app under Cards, then Freeze card, and order a replacement, " +
          "which arrives within five working days. Replacement cards keep the same PIN and the same account number, " +
          "and any recurring payments move to the new card automatically after it is activated in the app.",
      },
    });
    expect(source.status).toBe(201);
  }
  app.startWorker();
});

afterAll(async () => {
  await app?.close();
  await providers?.close();
});

describe("SMS formatting", () => {
  it("replaces typography with GSM look-alikes, so a plain reply is billed as GSM-7", () => {
    expect(gsmSafe("“Reset PIN” – it’s quick… • done")).toBe('"Reset PIN" - it\'s quick... - done');
    expect(smsSegments(gsmSafe("Don’t wait — call us")).encoding).toBe("GSM-7");
    expect(gsmSafe("Habari yako? Ñandú, 東京")).toBe("Habari yako? Ñandú, 東京");
  });

  it("cuts to three segments at a clean boundary, marking the cut with GSM dots", () => {
    const long = Array.from({ length: 40 }, (_, i) => `Sentence number ${i} explains one more thing.`).join(" ");
    const cut = fitSmsSegments(long, 3);
    expect(smsSegments(cut)).toMatchObject({ encoding: "GSM-7", segments: 3 });
    expect(cut.endsWith(".")).toBe(true);
    expect(long.startsWith(cut.replace(/\.\.\.$/, ""))).toBe(true);
  });

  it("counts UCS-2 texts at 67 characters a segment", () => {
    const greek = "Καλημέρα σας, πώς μπορώ να βοηθήσω σήμερα με την κάρτα σας; ".repeat(10);
    const cut = fitSmsSegments(greek, 3);
    expect(smsSegments(cut)).toMatchObject({ encoding: "UCS-2" });
    expect(cut.length).toBeLessThanOrEqual(3 * 67);
    expect(cut.length).toBeGreaterThan(2 * 67);
  });

  it("formats a markdown answer as plain GSM-7 text of at most three segments", () => {
    const answer = `## Your card\n\n**Reset** your PIN in the [app](https://bank.example/app) — it’s quick.\n\n- Open Cards\n- Choose “Reset PIN”\n\n${"More detail follows here. ".repeat(40)}`;
    const text = sms.format(answer, {});
    expect(text).not.toMatch(/[#*[\]]/);
    expect(text).toMatch(/^Your card\n\nReset your PIN in the app \(https:\/\/bank\.example\/app\) - it's quick\./);
    expect(text).toContain('- Choose "Reset PIN"');
    expect(smsSegments(text)).toMatchObject({ encoding: "GSM-7" });
    expect(smsSegments(text).segments).toBeLessThanOrEqual(3);
  });
});

describe("Twilio signatures", () => {
  it("reproduces the documented X-Twilio-Signature test vector", () => {
    const params: Array<[string, string]> = [
      ["AccountSid", accountSid],
      ["Body", "Hello"],
      ["From", "+15551234567"],
      ["MessageSid", "SM00000000000000000000000000000001"],
      ["NumMedia", "0"],
      ["To", twilioNumber],
    ];
    expect(twilioSignature(authToken, "https://bot.example.com/hooks/sms/tenant-a", params)).toBe("EWO37bJVhDyUyfUSOtnKAFrslYg=");
    // Twilio's own published example, with the parameters in another order: they are sorted by name.
    expect(
      twilioSignature("12345", "https://mycompany.com/myapp.php?foo=1&bar=2", [
        ["To", "+18005551212"],
        ["CallSid", "CA1234567890ABCDE"],
        ["From", "+14158675309"],
        ["Caller", "+14158675309"],
        ["Digits", "1234"],
      ]),
    ).toBe("RSOYDt4T1cUTdK1PDd93/VVr8B8=");
  });

  it("derives the documented Africa's Talking URL token", () => {
    expect(createHmac("sha256", "test_path_secret").update("at:tenant-a").digest("hex").slice(0, 32)).toBe(atToken);
  });
});

describe("SMS channel configuration", () => {
  it("validates the credentials of the provider the settings choose (422 with details)", async () => {
    const { apiKey } = await app.tenant("Config Bank");
    const wrong = await app.request("/api/tenant/channels/sms", {
      method: "PUT",
      key: apiKey,
      body: {
        credentials: { account_sid: accountSid, auth_token: authToken, phone_number: "+15550001111" },
        settings: { provider: "africastalking" },
      },
    });
    expect(wrong.status).toBe(422);
    expect(wrong.body.details.map((d: { path: string }) => d.path)).toEqual(
      expect.arrayContaining(["credentials.username", "credentials.api_key", "credentials.shortcode", "credentials.token"]),
    );
    const unknown = await app.request("/api/tenant/channels/sms", {
      method: "PUT",
      key: apiKey,
      body: { credentials: { account_sid: accountSid }, settings: { provider: "carrier-pigeon" } },
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error).toMatch(/settings.provider must be one of twilio, africastalking/);
  });

  it("routes Twilio by the number in E.164 and masks the secrets", async () => {
    const res = await app.request("/api/tenant/channels/sms", { key });
    expect(res.body.routing_key).toBe(twilioNumber);
    expect(res.body.credentials).toMatchObject({ account_sid: accountSid, auth_token: "••••oken" });
    expect(res.body.webhook_url).toBe(smsUrl);
  });
});

describe("SMS through Twilio", () => {
  it("acknowledges a signed message with empty TwiML and the reply arrives through the Messages API", async () => {
    const before = providers.sends.length;
    const fields = twilioMessage("SM00000000000000000000000000000001", "+15551234567", "How do I reset my card PIN?");
    const res = await postTwilio(fields);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/xml/);
    expect(res.body).toBe('<?xml version="1.0" encoding="UTF-8"?><Response/>');

    const [send] = (await providers.waitForSends(before + 1)).slice(before);
    expect(send!.path).toBe(`/twilio/2010-04-01/Accounts/${accountSid}/Messages.json`);
    expect(send!.headers.authorization).toBe(`Basic ${Buffer.from(`${accountSid}:${authToken}`).toString("base64")}`);
    expect(send!.body).toMatchObject({ To: "+15551234567", From: twilioNumber });
    expect(send!.body.Body).toMatch(/Reset PIN/);
    expect(smsSegments(send!.body.Body).segments).toBeLessThanOrEqual(3);

    const reply = await replyTo("+15551234567");
    await vi.waitFor(async () => {
      const [conversation] = (await conversationsOn(app, key, "sms")).filter((c) => c.customer_phone === "+15551234567");
      const messages = await conversationMessages(app, key, conversation!.id);
      expect(messages.find((m) => m.id === reply.id)!.delivery).toMatchObject({ status: "sent", attempts: 1, error: null });
      expect(messages.find((m) => m.id === reply.id)!.metadata.providerMessageId).toMatch(/^SM/);
    });
  });

  it("answers 401 AUTH_INVALID for a bad or missing signature and stores nothing", async () => {
    const fields = twilioMessage("SMFORGED0000000000000000000000001", "+15550009999", "Send me the balance");
    const forged = await postTwilio(fields, signed(fields, "not-the-auth-token"));
    expect(forged.status).toBe(401);
    expect(forged.body.code).toBe("AUTH_INVALID");
    // Signed for another URL than the one Twilio was given.
    const moved = await postTwilio(fields, signed(fields, authToken, "https://evil.example.com/api/channels/sms"));
    expect(moved.status).toBe(401);
    const unsigned = await postForm(app, "/api/channels/sms", fields);
    expect(unsigned.status).toBe(401);
    expect(unsigned.body.code).toBe("AUTH_INVALID");
    expect(await stored("SMFORGED0000000000000000000000001")).toBe(0);
  });

  it("acknowledges and ignores a message to a number no tenant has", async () => {
    const fields = { ...twilioMessage("SMNOBODY0000000000000000000000001", "+15551234567", "Hi"), To: "+15550000000" };
    const res = await postTwilio(fields);
    expect(res.status).toBe(200);
    expect(res.body).toContain("<Response/>");
    expect(await stored("SMNOBODY0000000000000000000000001")).toBe(0);
  });

  it("gives a redelivered message no second reply", async () => {
    const fields = twilioMessage("SMDUP00000000000000000000000000001", "+15550002222", "What are your opening hours?");
    const before = providers.sends.length;
    expect((await postTwilio(fields)).status).toBe(200);
    await providers.waitForSends(before + 1);
    expect((await postTwilio(fields)).status).toBe(200);
    await Promise.all([postTwilio(fields), postTwilio(fields)]);
    await settled();
    expect(providers.sends.length).toBe(before + 1);
    expect(
      await app.services.db.prisma.message.count({
        where: { tenantId, role: "customer", providerMessageId: { endsWith: ":SMDUP00000000000000000000000000001" } },
      }),
    ).toBe(1);
  });

  it("answers a picture message politely, asking for text", async () => {
    const before = providers.sends.length;
    const fields = twilioMessage("MM00000000000000000000000000000001", "+15550003333", "", {
      NumMedia: "1",
      MediaContentType0: "image/jpeg",
      MediaUrl0: "https://api.twilio.com/2010-04-01/Accounts/AC00000000000000000000000000000001/Messages/MM1/Media/ME1",
    });
    expect((await postTwilio(fields)).status).toBe(200);
    const [send] = (await providers.waitForSends(before + 1)).slice(before);
    expect(send!.body.To).toBe("+15550003333");
    expect(send!.body.Body).toMatch(/only read text/i);
    expect(smsSegments(send!.body.Body).encoding).toBe("GSM-7");
  });

  it("keeps retrying through a provider outage and delivers once it recovers", async () => {
    providers.failPath(/^\/twilio\//, { status: 503, body: { code: 20500, message: "Service Unavailable", status: 503 } });
    const before = providers.sends.length;
    expect((await postTwilio(twilioMessage("SMOUTAGE000000000000000000000001", "+15550004444", "Hello again"))).status).toBe(200);
    const pending = await vi.waitFor(
      async () => {
        const reply = await replyTo("+15550004444");
        expect(reply.delivery).toMatchObject({ status: "pending", error: expect.stringMatching(/503.*Service Unavailable/) });
        expect(reply.delivery!.attempts).toBeGreaterThanOrEqual(2);
        return reply;
      },
      { timeout: 15_000, interval: 200 },
    );
    providers.recover();
    const [send] = (await providers.waitForSends(before + 1, 20_000)).slice(before);
    expect(send!.body.To).toBe("+15550004444");
    await vi.waitFor(async () => {
      const reply = await replyTo("+15550004444");
      expect(reply.id).toBe(pending.id);
      expect(reply.delivery).toMatchObject({ status: "sent", error: null });
      expect(reply.delivery!.attempts).toBeGreaterThan(2);
    });
  });

  it("marks a send Twilio refuses as failed with Twilio's error, without retrying", async () => {
    providers.failNext({
      status: 400,
      body: { code: 21211, message: "The 'To' number +15550005555 is not a valid phone number.", status: 400 },
    });
    expect((await postTwilio(twilioMessage("SMREFUSED00000000000000000000001", "+15550005555", "Hello there"))).status).toBe(200);
    await vi.waitFor(async () => {
      const reply = await replyTo("+15550005555");
      expect(reply.delivery).toMatchObject({ status: "failed", attempts: 1 });
      expect(reply.delivery!.error).toMatch(/not a valid phone number/);
    });
  });
});

describe("SMS through Africa's Talking", () => {
  it("accepts a message posted to the URL with the channel's token and replies through version1/messaging", async () => {
    const before = providers.sends.length;
    const res = await postAt(atMessage("ATXid_0001", "+254711000111", "How do I reset my card PIN?"));
    expect(res.status).toBe(200);
    const [send] = (await providers.waitForSends(before + 1)).slice(before);
    expect(send!.path).toBe("/africastalking/version1/messaging");
    expect(send!.headers.apikey).toBe("atsk_test_api_key_0001");
    expect(send!.headers.accept).toBe("application/json");
    expect(send!.body).toMatchObject({ username: "sandbox", to: "+254711000111", from: "22384" });
    expect(send!.body.message).toMatch(/Reset PIN/);
    expect(smsSegments(send!.body.message).segments).toBeLessThanOrEqual(3);
    const [conversation] = await conversationsOn(app, atKey, "sms");
    expect(conversation!.customer_phone).toBe("+254711000111");
  });

  it("answers 401 AUTH_INVALID for a wrong or missing token and stores nothing", async () => {
    const fields = atMessage("ATXid_FORGED", "+254711000999", "Hello");
    const wrong = await postAt(fields, "0000000000000000deadbeefdeadbeef");
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe("AUTH_INVALID");
    const missing = await postForm(app, "/api/channels/sms", fields);
    expect(missing.status).toBe(401);
    expect(await stored("ATXid_FORGED")).toBe(0);
  });

  it("gives a redelivered message no second reply", async () => {
    const before = providers.sends.length;
    const fields = atMessage("ATXid_DUP1", "+254711000222", "What are your opening hours?");
    expect((await postAt(fields)).status).toBe(200);
    await providers.waitForSends(before + 1);
    await Promise.all([postAt(fields), postAt(fields)]);
    await settled();
    expect(providers.sends.length).toBe(before + 1);
  });

  it("marks a message AT did not send to its recipient as failed with AT's status", async () => {
    providers.failNext({
      status: 201,
      body: {
        SMSMessageData: {
          Message: "Sent to 0/1 Total Cost: 0",
          Recipients: [{ statusCode: 403, number: "+254711000333", status: "InvalidPhoneNumber", cost: "0", messageId: "None" }],
        },
      },
    });
    expect((await postAt(atMessage("ATXid_INVALID1", "+254711000333", "Hello"))).status).toBe(200);
    const conversation = await vi.waitFor(async () => {
      const found = (await conversationsOn(app, atKey, "sms")).find((c) => c.customer_phone === "+254711000333");
      expect(found).toBeDefined();
      return found!;
    });
    await vi.waitFor(async () => {
      const reply = (await conversationMessages(app, atKey, conversation.id)).find((m) => m.role === "assistant")!;
      expect(reply.delivery).toMatchObject({ status: "failed", attempts: 1 });
      expect(reply.delivery!.error).toMatch(/InvalidPhoneNumber/);
    });
  });
});
