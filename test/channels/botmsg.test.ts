import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { botmsg } from "../../src/channels/botmsg.js";
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
  settledReply,
  untilWebhooksSettled,
} from "../helpers/channels.js";

// The bot-messaging channel (Telegram), with the test vector of ../shared/providers/telegram.md.
const path = "/api/v1/channels/botmsg/webhook";
const secret = "tenantA_s3cret-Token";
const otherSecret = "tenantB_s3cret-Token";
const botToken = "7000000001:AAHtestBotTokenOfTenantA_000001";
const otherBotToken = "7000000002:AAHtestBotTokenOfTenantB_000002";
const vector =
  '{"update_id":500000001,"message":{"message_id":42,"from":{"id":700000007,"is_bot":false,"first_name":"Ada","language_code":"en"},"chat":{"id":700000007,"first_name":"Ada","type":"private"},"date":1700000000,"text":"Hello"}}';

let providers: FakeProviders;
let app: TestApp;
let key: string;
let otherKey: string;
let updateId = 500000100;

function update(fields: Record<string, unknown>, id = ++updateId) {
  return JSON.stringify({ update_id: id, ...fields });
}

function textMessage(chatId: number, text: string, from: Record<string, unknown> = {}) {
  return {
    message: {
      message_id: updateId,
      from: { id: chatId, is_bot: false, first_name: "Kofi", ...from },
      chat: { id: chatId, type: "private" },
      date: 1700000000,
      text,
    },
  };
}

function post(body: string, token: string | null = secret) {
  return app.request(path, {
    body,
    headers: { "content-type": "application/json", ...(token === null ? {} : { "x-telegram-bot-api-secret-token": token }) },
  });
}

beforeAll(async () => {
  providers = await startFakeProviders();
  app = await startTestApp(providers.env);
  ({ apiKey: key } = await app.tenant("Bot Bank"));
  ({ apiKey: otherKey } = await app.tenant("Other Bot Bank"));
  await configureChannel(app, key, "botmsg", { bot_token: botToken, secret_token: secret });
  await configureChannel(app, otherKey, "botmsg", { bot_token: otherBotToken, secret_token: otherSecret });
  app.startWorker();
});

afterAll(async () => {
  await app?.close();
  await providers?.close();
});

describe("bot-messaging webhook", () => {
  it("compares the secret token as the provider documents, by SHA-256 digests", () => {
    expect(createHash("sha256").update(secret).digest("hex")).toBe(
      "aaada29e9fe935e7826efaf121617c38b69e25bbfc22c0a26f721664a70c0d37",
    );
  });

  it("accepts the test vector for the tenant whose secret token it carries, and replies with sendMessage", async () => {
    const send = await providers.nextSend(async () => {
      const res = await post(vector);
      expect(res.status).toBe(200);
    });
    expect(send.path).toBe(`/telegram/bot${botToken}/sendMessage`);
    expect(send.body.chat_id).toBe("700000007");
    expect(send.body.text.length).toBeGreaterThan(0);
    expect(send.body.parse_mode).toBeUndefined();
    const [conversation] = await conversationsOn(app, key, "botmsg");
    expect(conversation).toBeDefined();
    expect(conversation!.customer_phone).toBeNull();
    expect(await conversationsOn(app, otherKey, "botmsg")).toHaveLength(0);
    const messages = await conversationMessages(app, key, conversation!.id);
    expect(messages[0]).toMatchObject({ role: "customer", content: "Hello" });
  });

  it("routes by the secret token: the same chat on another tenant's bot is that tenant's conversation", async () => {
    const send = await providers.nextSend(async () =>
      expect((await post(update(textMessage(700000007, "Hi")), otherSecret)).status).toBe(200),
    );
    expect(send.path).toBe(`/telegram/bot${otherBotToken}/sendMessage`);
    await conversationOf(app, otherKey, "botmsg", "700000007");
  });

  it("answers 401 AUTH_INVALID for a wrong or missing secret token, storing nothing", async () => {
    const id = ++updateId;
    const wrong = await post(update(textMessage(700000008, "Hi"), id), "wrong");
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe("AUTH_INVALID");
    const missing = await post(update(textMessage(700000008, "Hi"), id), null);
    expect(missing.status).toBe(401);
    expect(await inboundJobs(app, id)).toBe(0);
  });

  it("gives a redelivered update no second reply", async () => {
    const body = update(textMessage(700000009, "What are your opening hours?"));
    await providers.nextSend(() => post(body));
    const before = providers.sends.length;
    expect((await post(body)).status).toBe(200);
    await untilWebhooksSettled(app);
    expect(providers.sends.length).toBe(before);
  });

  it("ignores messages from bots and updates that carry no customer message", async () => {
    const fromBot = ++updateId;
    expect((await post(update(textMessage(700000010, "beep", { is_bot: true }), fromBot))).status).toBe(200);
    const blocked = ++updateId;
    const body = update(
      { my_chat_member: { chat: { id: 700000010, type: "private" }, from: { id: 700000010, is_bot: false } } },
      blocked,
    );
    expect((await post(body)).status).toBe(200);
    expect((await inboundJobs(app, fromBot)) + (await inboundJobs(app, blocked))).toBe(0);
  });

  it("answers a sticker politely, asking for text", async () => {
    const body = update({
      message: {
        message_id: 77,
        from: { id: 700000011, is_bot: false, first_name: "Ama" },
        chat: { id: 700000011, type: "private" },
        date: 1700000000,
        sticker: { file_id: "CAACAgIAAxk", emoji: "👍" },
      },
    });
    const send = await providers.nextSend(() => post(body));
    expect(send.body.chat_id).toBe("700000011");
    expect(send.body.text).toMatch(/only read text/i);
  });

  it("answers a group message to the group's chat id", async () => {
    const body = update({
      message: {
        message_id: 78,
        from: { id: 700000012, is_bot: false, first_name: "Yaw" },
        chat: { id: -1001234567890, type: "supergroup", title: "Treasury" },
        date: 1700000000,
        text: "How do I reset my PIN?",
      },
    });
    const send = await providers.nextSend(() => post(body));
    expect(send.body.chat_id).toBe("-1001234567890");
  });

  it("retries through a Bot API outage, honouring Retry-After, then delivers", async () => {
    providers.failNext(
      { status: 502, body: { ok: false, error_code: 502, description: "Bad Gateway" } },
      {
        status: 429,
        headers: { "retry-after": "1" },
        body: { ok: false, error_code: 429, description: "Too Many Requests: retry after 1", parameters: { retry_after: 1 } },
      },
    );
    expect((await post(update(textMessage(700000014, "Hello")))).status).toBe(200);
    const conversation = await conversationOf(app, key, "botmsg", "700000014");
    expect((await settledReply(app, key, conversation.id)).delivery).toMatchObject({ status: "sent", attempts: 3, error: null });
  });

  it("marks a reply Telegram refuses (the customer blocked the bot) as failed, without retrying it", async () => {
    providers.failNext({
      status: 403,
      body: { ok: false, error_code: 403, description: "Forbidden: bot was blocked by the user" },
    });
    expect((await post(update(textMessage(700000013, "Hello")))).status).toBe(200);
    const conversation = await conversationOf(app, key, "botmsg", "700000013");
    const reply = await settledReply(app, key, conversation.id);
    expect(reply.delivery).toMatchObject({ status: "failed", attempts: 1 });
    expect(reply.delivery!.error).toMatch(/blocked by the user/);
  });

  it("answers 422 VALIDATION for a body that is not JSON", async () => {
    const res = await post("not json");
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("VALIDATION");
  });
});

describe("the questions a decline lists, as inline buttons", () => {
  const faqSecret = "tenantC_s3cret-Token";
  const faqBotToken = "7000000003:AAHtestBotTokenOfTenantC_000003";
  let faqKey: string;
  const toChat = (chatId: number) => (send: RecordedSend) => send.body.chat_id === String(chatId);
  let declined: { chatId: number; buttons: Array<{ text: string; callback_data: string }> };

  /**
   * A press of one of the buttons. Telegram sends the message that carries them, or, once it is too old to include
   * (48 hours), an InaccessibleMessage: its chat and id, with a date of 0.
   */
  function press(data: string, chatId: number, carrier: Record<string, unknown>) {
    const id = `cbq-${++updateId}`;
    const from = { id: chatId, is_bot: false, first_name: "Esi" };
    const message = { message_id: 90, chat: { id: chatId, type: "private" }, ...carrier };
    return { id, body: update({ callback_query: { id, from, chat_instance: "-1", data, message } }) };
  }

  beforeAll(async () => {
    faqKey = await faqTenantOn(app, "FAQ Bot Bank", "botmsg", { bot_token: faqBotToken, secret_token: faqSecret });
    const chatId = 700000020;
    const send = await providers.nextSend(
      () => post(update(textMessage(chatId, "the limit for taking cash out")), faqSecret),
      toChat(chatId),
    );
    expect(send.body.text).toContain(
      "Did you mean one of these? Reply with its number.\n1. How much can I withdraw from an ATM per day?",
    );
    declined = { chatId, buttons: send.body.reply_markup.inline_keyboard.flat() };
  });

  it("sends them under the reply, each with its number as the button's data", () => {
    expect(declined.buttons[0]).toEqual({ text: "How much can I withdraw from an ATM per day?", callback_data: "1" });
    expect(declined.buttons.map((b) => b.callback_data)).toEqual(declined.buttons.map((_, i) => String(i + 1)));
  });

  it("answers a press in the webhook's answer, and asks the question the button names", async () => {
    const pressed = press("1", declined.chatId, {
      date: 1700000000,
      text: "I'm not sure…",
      reply_markup: { inline_keyboard: [declined.buttons] },
    });
    let ack: { status: number; body: unknown } | undefined;
    const send = await providers.nextSend(async () => {
      ack = await post(pressed.body, faqSecret);
    }, toChat(declined.chatId));
    expect(ack).toMatchObject({ status: 200, body: { method: "answerCallbackQuery", callback_query_id: pressed.id } });
    expect(send.body.text).toContain("The daily ATM withdrawal limit is 1,000 EUR.");
    expect(send.body.reply_markup).toBeUndefined();
    expect(await lastCustomerText(app, faqKey, "botmsg", String(declined.chatId))).toBe(
      "How much can I withdraw from an ATM per day?",
    );
    expect(await answeredChoice(app, faqKey, "botmsg", String(declined.chatId))).toBe(true);
  });

  it("reads a press whose message Telegram no longer includes by its number, against the latest list", async () => {
    const chatId = 700000021;
    const first = await providers.nextSend(
      () => post(update(textMessage(chatId, "the limit for taking cash out")), faqSecret),
      toChat(chatId),
    );
    const [button] = first.body.reply_markup.inline_keyboard.flat();
    const send = await providers.nextSend(
      () => post(press(button.callback_data, chatId, { date: 0 }).body, faqSecret),
      toChat(chatId),
    );
    expect(send.body.text).toContain("The daily ATM withdrawal limit is 1,000 EUR.");
    expect(await answeredChoice(app, faqKey, "botmsg", String(chatId))).toBe(true);
  });

  it("gives other updates the plain acknowledgement", async () => {
    const res = await post(update(textMessage(700000022, "Hello")), faqSecret);
    expect(res.body).toEqual({ ok: true });
    await untilWebhooksSettled(app);
  });
});

describe("bot-messaging configuration", () => {
  it("validates the bot token and secret token, and masks both on read", async () => {
    const bad = await app.request("/api/tenant/channels/botmsg", {
      method: "PUT",
      key,
      body: { credentials: { bot_token: "not-a-token", secret_token: "short" } },
    });
    expect(bad.status).toBe(422);
    const paths = (bad.body.details as Array<{ path: string }>).map((d) => d.path);
    expect(paths).toEqual(expect.arrayContaining(["credentials.bot_token", "credentials.secret_token"]));
    const read = await app.request("/api/tenant/channels/botmsg", { key });
    expect(read.status).toBe(200);
    expect(read.body.routing_key).toBe("7000000001");
    expect(JSON.stringify(read.body)).not.toContain(secret);
    expect(JSON.stringify(read.body)).not.toContain(botToken);
  });

  it("formats replies as plain text within 4,096 characters", () => {
    const formatted = botmsg.format(`**Fees**\n\n${"Transfers between your own accounts are free of charge. ".repeat(100)}`, {});
    expect(formatted.length).toBeLessThanOrEqual(4096);
    expect(formatted).not.toContain("**");
  });
});
