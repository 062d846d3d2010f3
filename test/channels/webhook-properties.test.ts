import { createHmac } from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { twilioSignature } from "../../src/channels/twilio.js";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { chatappMessageEvent, configureChannel, metaJson, metaSignature, postForm } from "../helpers/channels.js";
import { countInputs, expectClearAnswer, oddJsonText, oddString, propertyOptions, rowCounts } from "../helpers/properties.js";

// Every provider webhook, through its real HTTP path, with a valid signature computed here over whatever is
// sent: payloads of the provider's shape with odd text, ids and names (NULs, unpaired surrogates, huge),
// any JSON, and any bytes. The answer is 2xx (the provider's acknowledgement or screen) or a 4xx
// `{error, code}`, and a refused delivery wrote nothing.

const publicBase = "https://bot.example.com";
const appSecret = "prop_app_secret";
const phoneNumberId = "200000000000777";
const pageId = "300000000000777";
const botSecret = "prop_bot_secret-Token";
const xAccount = "800000777";
const xSecret = "prop_consumer_secret";
const slackTeam = "T0PROP001";
const slackSecret = "prop_signing_secret";
const twilioToken = "prop_auth_token";
const twilioNumber = "+15557650777";
const smsAtToken = "4369f9454ad30bfec0a542bc00afac77";
const ussdToken = "4369f9454ad30bfec0a542bc00afac78";
const ussdCode = "*384*777#";

let app: TestApp;
let key: string;
const counted = countInputs("webhooks");
const runsPerEndpoint = 25;

beforeAll(async () => {
  app = await startTestApp({ PUBLIC_BASE_URL: publicBase, RATE_LIMIT_MAX: "1000000" });
  ({ apiKey: key } = await app.tenant("Webhook Property Bank"));
  const meta = { verify_token: "prop-verify", app_secret: appSecret };
  await configureChannel(app, key, "chatapp", { phone_number_id: phoneNumberId, access_token: "EAAG-prop-token-0001", ...meta });
  await configureChannel(app, key, "messenger", { page_id: pageId, access_token: "EAAG-prop-token-0002", ...meta });
  await configureChannel(app, key, "botmsg", { bot_token: "7000000777:AAHpropBotToken_000777", secret_token: botSecret });
  await configureChannel(app, key, "microblog", {
    user_id: xAccount,
    consumer_secret: xSecret,
    access_token: "x-user-access-token-prop-0001",
  });
  await configureChannel(app, key, "teamchat", {
    team_id: slackTeam,
    bot_token: "xoxb-1-prop-bot-token",
    signing_secret: slackSecret,
  });
  const twilio = { account_sid: "AC00000000000000000000000000000777", auth_token: twilioToken, phone_number: twilioNumber };
  await configureChannel(app, key, "sms", twilio, { provider: "twilio" });
  await configureChannel(app, key, "voice", twilio);
  await configureChannel(app, key, "ussd", { service_code: ussdCode, token: ussdToken });
  const { apiKey: atKey } = await app.tenant("Webhook Property Bank AT");
  await configureChannel(
    app,
    atKey,
    "sms",
    { username: "sandbox", api_key: "atsk_prop_api_key_0001", shortcode: "22777", token: smsAtToken },
    { provider: "africastalking" },
  );
});

afterAll(async () => {
  await app?.close();
});

const id = fc.oneof(oddString, fc.integer({ min: 1, max: 1e12 }).map(String));
const text = oddString;

/** A provider endpoint: its path, body format, a payload of its own shape, and its signature over the bytes. */
interface Endpoint {
  name: string;
  path: string;
  form: boolean;
  shaped: fc.Arbitrary<string>;
  sign(body: Buffer, url: string): Record<string, string>;
}

const hmac = (secret: string, data: Buffer, encoding: "hex" | "base64") =>
  createHmac("sha256", secret).update(data).digest(encoding);

const signedByMeta = (body: Buffer) => ({ "x-hub-signature-256": `sha256=${hmac(appSecret, body, "hex")}` });

// Twilio signs the form fields as it sent them; the server reads them back from the bytes the same way.
const signedByTwilio = (body: Buffer, url: string) => ({
  "x-twilio-signature": twilioSignature(twilioToken, url, [...new URLSearchParams(body.toString("utf8"))]),
});

const form = (fields: fc.Arbitrary<Record<string, string>>) => fields.map((f) => new URLSearchParams(f).toString());

const endpoints: Endpoint[] = [
  {
    name: "chat-app (WhatsApp Cloud API)",
    path: "/api/channels/chatapp",
    form: false,
    shaped: fc
      .record({ from: id, id, name: text, body: text, routing: fc.oneof(fc.constant(phoneNumberId), id) })
      .map((m) =>
        chatappMessageEvent(
          m.routing,
          { from: m.from, id: m.id, timestamp: "1700000000", type: "text", text: { body: m.body } },
          m.name,
        ),
      ),
    sign: signedByMeta,
  },
  {
    name: "page messaging (Messenger)",
    path: "/api/v1/channels/social/webhook",
    form: false,
    shaped: fc.record({ sender: id, mid: id, body: text, page: fc.oneof(fc.constant(pageId), id) }).map((m) =>
      metaJson({
        object: "page",
        entry: [
          {
            id: m.page,
            time: 1700000000000,
            messaging: [
              { sender: { id: m.sender }, recipient: { id: m.page }, timestamp: 1, message: { mid: m.mid, text: m.body } },
            ],
          },
        ],
      }),
    ),
    sign: signedByMeta,
  },
  {
    name: "bot messaging (Telegram)",
    path: "/api/v1/channels/botmsg/webhook",
    form: false,
    shaped: fc.record({ update: fc.integer({ min: 1 }), chat: fc.integer(), name: text, body: text }).map((m) =>
      JSON.stringify({
        update_id: m.update,
        message: {
          message_id: m.update,
          from: { id: m.chat, is_bot: false, first_name: m.name },
          chat: { id: m.chat, type: "private" },
          date: 1700000000,
          text: m.body,
        },
      }),
    ),
    sign: () => ({ "x-telegram-bot-api-secret-token": botSecret }),
  },
  {
    name: "short-post social (X Account Activity)",
    path: "/api/channels/microblog",
    form: false,
    shaped: fc.record({ sender: id, id, body: text, name: text }).map((m) =>
      JSON.stringify({
        for_user_id: xAccount,
        direct_message_events: [
          {
            type: "message_create",
            id: m.id,
            created_timestamp: "1700000000000",
            message_create: { target: { recipient_id: xAccount }, sender_id: m.sender, message_data: { text: m.body } },
          },
        ],
        users: { [m.sender]: { id: m.sender, name: m.name, screen_name: m.name } },
      }),
    ),
    sign: (body) => ({ "x-twitter-webhooks-signature": `sha256=${hmac(xSecret, body, "base64")}` }),
  },
  {
    name: "team chat (Slack Events API)",
    path: "/api/v1/channels/teamchat/webhook",
    form: false,
    shaped: fc.record({ channel: id, user: id, body: text, ts: id }).map((m) =>
      JSON.stringify({
        team_id: slackTeam,
        event: { type: "message", channel_type: "im", channel: m.channel, user: m.user, text: m.body, ts: m.ts },
        type: "event_callback",
        event_id: "Ev0PROP",
        authorizations: [{ team_id: slackTeam, user_id: "U0BOT0777", is_bot: true }],
      }),
    ),
    sign: (body) => {
      const timestamp = String(Math.floor(Date.now() / 1000));
      const base = Buffer.concat([Buffer.from(`v0:${timestamp}:`), body]);
      return { "x-slack-request-timestamp": timestamp, "x-slack-signature": `v0=${hmac(slackSecret, base, "hex")}` };
    },
  },
  {
    name: "SMS (Twilio)",
    path: "/api/channels/sms",
    form: true,
    shaped: form(fc.record({ MessageSid: id, SmsSid: id, From: id, Body: text, To: fc.oneof(fc.constant(twilioNumber), id) })),
    sign: signedByTwilio,
  },
  {
    name: "SMS (Africa's Talking)",
    path: `/api/channels/sms?token=${smsAtToken}`,
    form: true,
    shaped: form(fc.record({ id, from: id, text, to: fc.constant("22777"), date: fc.constant("2026-11-23 10:00:00") })),
    sign: () => ({}),
  },
  {
    name: "USSD (Africa's Talking)",
    path: `/api/channels/ussd?token=${ussdToken}`,
    form: true,
    shaped: form(fc.record({ sessionId: id, serviceCode: fc.oneof(fc.constant(ussdCode), id), phoneNumber: id, text })),
    sign: () => ({}),
  },
  {
    name: "voice call steps (Twilio)",
    path: "/api/v1/voice/inbound",
    form: true,
    shaped: form(fc.record({ CallSid: id, From: id, To: fc.constant(twilioNumber), CallStatus: text, SpeechResult: text })),
    sign: signedByTwilio,
  },
  {
    name: "voice call status (Twilio)",
    path: "/api/v1/voice/status",
    form: true,
    shaped: form(fc.record({ CallSid: id, From: id, To: fc.constant(twilioNumber), CallStatus: text })),
    sign: signedByTwilio,
  },
];

function deliveries(endpoint: Endpoint) {
  return fc.oneof(
    { weight: 3, arbitrary: endpoint.shaped },
    { weight: 1, arbitrary: oddJsonText },
    { weight: 1, arbitrary: form(fc.dictionary(oddString, oddString, { maxKeys: 4 })) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 256 }).map((b) => Buffer.from(b).toString("latin1")) },
  );
}

describe("every provider webhook answers signed generated deliveries with 2xx or a 4xx {error, code}", () => {
  it.each(endpoints.map((e) => [e.name, e] as const))("%s", async (_name, endpoint) => {
    await fc.assert(
      fc.asyncProperty(deliveries(endpoint), async (payload) => {
        counted();
        const body = Buffer.from(payload, "utf8");
        const before = await rowCounts(app);
        const res = await fetch(`${app.url}${endpoint.path}`, {
          method: "POST",
          headers: {
            "content-type": endpoint.form ? "application/x-www-form-urlencoded" : "application/json",
            ...endpoint.sign(body, `${publicBase}${endpoint.path}`),
          },
          body,
        });
        const answer = await res.text();
        let parsed: unknown = answer;
        try {
          parsed = JSON.parse(answer);
        } catch {
          // TwiML or a USSD screen: judged by its status
        }
        const input = `${endpoint.path} ${payload}`;
        expectClearAnswer({ status: res.status, headers: res.headers, body: parsed }, input);
        if (res.status >= 400)
          expect(await rowCounts(app), `no write after ${res.status} for ${input.slice(0, 300)}`).toEqual(before);
      }),
      propertyOptions(runsPerEndpoint),
    );
  });
});

describe("provider text PostgreSQL cannot store", () => {
  it("stores and answers a USSD question with a NUL in it, the NUL removed", async () => {
    const res = await postForm(app, `/api/channels/ussd?token=${ussdToken}`, {
      sessionId: "ATUid_nul0001",
      serviceCode: ussdCode,
      phoneNumber: "+254711000901",
      text: "1*How do I reset my card\u0000 PIN?",
    });
    expect(res.status, String(res.body)).toBe(200);
    expect(String(res.body)).toMatch(/^(CON|END) /);
    const stored = await app.services.db.prisma.message.findFirst({
      where: { role: "customer", providerMessageId: { contains: ":ATUid_nul0001:" } },
    });
    expect(stored?.content).toBe("How do I reset my card PIN?");
  });

  it("accepts a chat-app message whose text and name hold a NUL and an unpaired surrogate, cleaned", async () => {
    const body = chatappMessageEvent(
      phoneNumberId,
      { from: "15550009901", id: "wamid.nul1", type: "text", text: { body: "Hello\u0000 there" } },
      "Ada\u0000 \ud800",
    );
    const res = await app.request("/api/channels/chatapp", {
      body,
      headers: { "content-type": "application/json", "x-hub-signature-256": metaSignature(body, appSecret) },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const job = await app.services.db.prisma.job.findFirst({ where: { dedupeKey: { endsWith: ":wamid.nul1" } } });
    expect(job).not.toBeNull();
    const { event } = job!.payload as { event: { text: string; customer: { name: string } } };
    expect(event.text).toBe("Hello there");
    expect(event.customer.name).toBe("Ada \ufffd");
  });
});
