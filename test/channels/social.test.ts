import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { instagram, messenger } from "../../src/channels/social.js";
import { type FakeProviders, type RecordedSend, startFakeProviders } from "../fakes/providers.js";
import { startTestApp, type TestApp } from "../helpers/app.js";
import {
  answeredChoice,
  configureChannel,
  conversationMessages,
  conversationOf,
  conversationsOn,
  faqTenantOn,
  inboundJobs,
  lastCustomerText,
  metaJson,
  metaSignature,
  settledReply,
  untilWebhooksSettled,
} from "../helpers/channels.js";

// Page messaging and photo-sharing DMs on the shared social webhook, with the test vectors of
// ../shared/providers/messenger-instagram.md.
const appSecret = "test_app_secret";
const messengerVector =
  '{"object":"page","entry":[{"id":"300000000000003","time":1700000000000,"messaging":[{"sender":{"id":"400000000000004"},"recipient":{"id":"300000000000003"},"timestamp":1700000000000,"message":{"mid":"m_TEST0001","text":"Hi"}}]}]}';
const messengerSignature = "sha256=aa285538c49fab41b9b6f39f9707f931b5be7a7157fcfcfb1637edae7917714c";
const instagramVector =
  '{"object":"instagram","entry":[{"id":"17840000000000005","time":1700000000000,"messaging":[{"sender":{"id":"600000000000006"},"recipient":{"id":"17840000000000005"},"timestamp":1700000000000,"message":{"mid":"aWdfTEST0001","text":"Hi"}}]}]}';
const instagramSignature = "sha256=deb7a8390560efe1260d5569a940e1aa2f5c1fbf35ff9c48bc319560b12bfa20";

const pageToken = "EAAB-page-token-000000001";
const otherPageToken = "EAAB-page-token-000000002";

let providers: FakeProviders;
let app: TestApp;
let key: string;
let otherKey: string;

function messaging(object: "page" | "instagram", entries: Array<{ id: string; items: unknown[] }>): string {
  return metaJson({
    object,
    entry: entries.map((e) => ({ id: e.id, time: 1700000000000, messaging: e.items })),
  });
}

const message = (page: string, sender: string, body: Record<string, unknown>) => ({
  sender: { id: sender },
  recipient: { id: page },
  timestamp: 1700000000000,
  message: body,
});

async function post(body: string, signature = metaSignature(body, appSecret)) {
  return app.request("/api/v1/channels/social/webhook", {
    body,
    headers: { "content-type": "application/json", "x-hub-signature-256": signature },
  });
}

beforeAll(async () => {
  providers = await startFakeProviders();
  app = await startTestApp(providers.env);
  ({ apiKey: key } = await app.tenant("Social Bank"));
  ({ apiKey: otherKey } = await app.tenant("Other Social Bank"));
  const meta = { verify_token: "social-verify-1", app_secret: appSecret };
  await configureChannel(app, key, "messenger", { page_id: "300000000000003", access_token: pageToken, ...meta });
  await configureChannel(app, key, "instagram", { ig_account_id: "17840000000000005", access_token: pageToken, ...meta });
  // Another tenant's Page on the same Meta app: one app secret signs events of both.
  await configureChannel(app, otherKey, "messenger", {
    page_id: "300000000000099",
    access_token: otherPageToken,
    verify_token: "social-verify-2",
    app_secret: appSecret,
  });
  app.startWorker();
});

afterAll(async () => {
  await app?.close();
  await providers?.close();
});

describe("the social webhook", () => {
  it("answers the subscription check for either product's verify token, and 403 for others", async () => {
    const ok = await app.request(
      "/api/v1/channels/social/webhook?hub.mode=subscribe&hub.verify_token=social-verify-2&hub.challenge=42",
    );
    expect(ok.status).toBe(200);
    expect(ok.body).toBe(42);
    const bad = await app.request("/api/v1/channels/social/webhook?hub.mode=subscribe&hub.verify_token=nope&hub.challenge=42");
    expect(bad.status).toBe(403);
    const notSubscribe = await app.request(
      "/api/v1/channels/social/webhook?hub.mode=unsubscribe&hub.verify_token=social-verify-1&hub.challenge=42",
    );
    expect(notSubscribe.status).toBe(403);
  });

  it("signs the provider's test vectors as documented", () => {
    expect(metaSignature(messengerVector, appSecret)).toBe(messengerSignature);
    expect(metaSignature(instagramVector, appSecret)).toBe(instagramSignature);
  });

  it("answers a Messenger message through the Send API", async () => {
    const send = await providers.nextSend(async () => {
      const res = await post(messengerVector, messengerSignature);
      expect(res.status).toBe(200);
      expect(res.body).toBe("EVENT_RECEIVED");
    });
    expect(send.path).toBe("/graph/me/messages");
    expect(send.body).toMatchObject({
      recipient: { id: "400000000000004" },
      messaging_type: "RESPONSE",
      access_token: pageToken,
    });
    expect(send.body.message.text.length).toBeGreaterThan(0);
    const [conversation] = await conversationsOn(app, key, "messenger");
    expect(conversation!.customer_phone).toBeNull();
  });

  it("answers an Instagram message through the Send API with the linked Page token", async () => {
    const send = await providers.nextSend(async () => expect((await post(instagramVector, instagramSignature)).status).toBe(200));
    expect(send.body).toMatchObject({ recipient: { id: "600000000000006" }, access_token: pageToken });
    expect(await conversationsOn(app, key, "instagram")).toHaveLength(1);
  });

  it("routes each entry of a batch to its own tenant", async () => {
    const before = providers.sends.length;
    const body = messaging("page", [
      { id: "300000000000003", items: [message("300000000000003", "400000000000010", { mid: "m_BATCH1", text: "Hello" })] },
      { id: "300000000000099", items: [message("300000000000099", "400000000000011", { mid: "m_BATCH2", text: "Hello" })] },
    ]);
    expect((await post(body)).status).toBe(200);
    const sends = (await providers.waitForSends(before + 2)).slice(before);
    const tokenFor = Object.fromEntries(sends.map((s) => [s.body.recipient.id, s.body.access_token]));
    expect(tokenFor).toEqual({ "400000000000010": pageToken, "400000000000011": otherPageToken });
    expect((await conversationsOn(app, otherKey, "messenger")).length).toBe(1);
  });

  it("never answers echoes of the Page's own messages, nor standby events", async () => {
    const body = metaJson({
      object: "page",
      entry: [
        {
          id: "300000000000003",
          time: 1700000000000,
          messaging: [
            {
              sender: { id: "300000000000003" },
              recipient: { id: "400000000000004" },
              timestamp: 1700000000000,
              message: { mid: "m_ECHO1", text: "Our own reply", is_echo: true, app_id: 1234 },
            },
          ],
          standby: [message("300000000000003", "400000000000012", { mid: "m_STANDBY1", text: "Hi" })],
        },
      ],
    });
    expect((await post(body)).status).toBe(200);
    const jobs = await inboundJobs(app, "m_ECHO1");
    const standby = await inboundJobs(app, "m_STANDBY1");
    expect(jobs + standby).toBe(0);
  });

  it("answers a picture politely", async () => {
    const body = messaging("page", [
      {
        id: "300000000000003",
        items: [
          message("300000000000003", "400000000000013", {
            mid: "m_IMG1",
            attachments: [{ type: "image", payload: { url: "http://127.0.0.1/x.jpg" } }],
          }),
        ],
      },
    ]);
    const send = await providers.nextSend(async () => expect((await post(body)).status).toBe(200));
    expect(send.body.recipient.id).toBe("400000000000013");
    expect(send.body.message.text).toMatch(/only read text/i);
  });

  it("answers 401 AUTH_INVALID when the signature is wrong, storing nothing", async () => {
    const body = messaging("page", [
      { id: "300000000000003", items: [message("300000000000003", "400000000000014", { mid: "m_FORGED", text: "Hi" })] },
    ]);
    const res = await post(body, metaSignature(body, "another-secret"));
    expect(res.status).toBe(401);
    expect(res.body.code).toBe("AUTH_INVALID");
    expect(await inboundJobs(app, "m_FORGED")).toBe(0);
  });

  it("acknowledges and ignores events for a Page no tenant has configured", async () => {
    const body = messaging("page", [
      { id: "300000000000777", items: [message("300000000000777", "400000000000015", { mid: "m_NOBODY1", text: "Hi" })] },
    ]);
    expect((await post(body)).status).toBe(200);
    expect(await inboundJobs(app, "m_NOBODY1")).toBe(0);
  });

  it("retries through a Send API outage, honouring Retry-After, then delivers", async () => {
    providers.failNext({ status: 500 }, { status: 429, headers: { "retry-after": "1" } });
    const body = messaging("page", [
      { id: "300000000000003", items: [message("300000000000003", "400000000000016", { mid: "m_OUTAGE1", text: "Hello" })] },
    ]);
    expect((await post(body)).status).toBe(200);
    const conversation = await conversationOf(app, key, "messenger", "400000000000016");
    expect((await settledReply(app, key, conversation.id)).delivery).toMatchObject({ status: "sent", attempts: 3, error: null });
  });

  it("gives a redelivered message no second reply", async () => {
    const body = messaging("instagram", [
      { id: "17840000000000005", items: [message("17840000000000005", "600000000000020", { mid: "aWdfDUP1", text: "Hello" })] },
    ]);
    await providers.nextSend(() => post(body));
    const before = providers.sends.length;
    expect((await post(body)).status).toBe(200);
    await untilWebhooksSettled(app);
    expect(providers.sends.length).toBe(before);
  });

  it("shows the reply as sent in the messages API", async () => {
    const [conversation] = await conversationsOn(app, key, "instagram");
    await vi.waitFor(async () => {
      const reply = (await conversationMessages(app, key, conversation!.id)).find((m) => m.role === "assistant");
      expect(reply?.delivery?.status).toBe("sent");
    });
  });
});

describe("the questions a decline lists, as quick replies", () => {
  const faqPage = "300000000000055";
  const customer = "400000000000077";
  let faqKey: string;
  let replies: Array<{ content_type: string; title: string; payload: string }>;
  const toCustomer = (send: RecordedSend) => send.body.recipient?.id === customer;

  beforeAll(async () => {
    faqKey = await faqTenantOn(app, "FAQ Social Bank", "messenger", {
      page_id: faqPage,
      access_token: pageToken,
      verify_token: "social-verify-3",
      app_secret: appSecret,
    });
    const asked = messaging("page", [
      { id: faqPage, items: [message(faqPage, customer, { mid: "m_FAQ0001", text: "the limit for taking cash out" })] },
    ]);
    const send = await providers.nextSend(() => post(asked), toCustomer);
    expect(send.body.message.text).toContain("Did you mean one of these? Reply with its number.\n1. How much can I withdraw");
    replies = send.body.message.quick_replies;
  });

  it("offers each question as a quick reply within Messenger's lengths, the question whole in its payload", () => {
    expect(replies[0]).toEqual({
      content_type: "text",
      title: "1. How much can I w…",
      payload: "ask:How much can I withdraw from an ATM per day?",
    });
    expect(replies.map((reply) => reply.title.length <= 20 && reply.title.slice(0, 3))).toEqual(
      replies.map((_, i) => `${i + 1}. `),
    );
  });

  it("asks the question of the quick reply the customer taps", async () => {
    const [reply] = replies;
    const tapped = messaging("page", [
      {
        id: faqPage,
        items: [message(faqPage, customer, { mid: "m_FAQ0002", text: reply!.title, quick_reply: { payload: reply!.payload } })],
      },
    ]);
    const send = await providers.nextSend(() => post(tapped), toCustomer);
    expect(send.body.message.text).toContain("The daily ATM withdrawal limit is 1,000 EUR.");
    expect(send.body.message.quick_replies).toBeUndefined();
    expect(await lastCustomerText(app, faqKey, "messenger", customer)).toBe("How much can I withdraw from an ATM per day?");
    expect(await answeredChoice(app, faqKey, "messenger", customer)).toBe(true);
  });
});

describe("social reply formats", () => {
  it("keeps Instagram replies within 1,000 UTF-8 bytes, cut cleanly", () => {
    const long = "Votre carte bancaire est bloquée après trois essais. ".repeat(40);
    const formatted = instagram.format(long, {});
    expect(Buffer.byteLength(formatted)).toBeLessThanOrEqual(1000);
    expect(formatted).toMatch(/\.$/);
  });

  it("keeps Messenger replies within 2,000 characters, as plain text", () => {
    const formatted = messenger.format(`**Opening hours**\n\n${"We are open from nine to five on weekdays. ".repeat(80)}`, {});
    expect(formatted.length).toBeLessThanOrEqual(2000);
    expect(formatted).not.toContain("**");
  });
});
