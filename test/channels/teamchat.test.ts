import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WebhookRequest } from "../../src/channels/adapter.js";
import { teamchat, toMrkdwn, verifySlackSignature } from "../../src/channels/teamchat.js";
import { type FakeProviders, type RecordedSend, startFakeProviders } from "../fakes/providers.js";
import { startTestApp, type TestApp } from "../helpers/app.js";
import {
  answeredChoice,
  configureChannel,
  conversationMessages,
  conversationOf,
  faqTenantOn,
  inboundJobs,
  lastCustomerText,
  settledReply,
  untilWebhooksSettled,
} from "../helpers/channels.js";

// Team chat (Slack Events API), with the test vectors of ../shared/providers/slack.md.
const path = "/api/v1/channels/teamchat/webhook";
const signingSecret = "test_signing_secret";
const botToken = "xoxb-1000000001-test-bot-token-a";
const otherBotToken = "xoxb-1000000002-test-bot-token-b";
const vector =
  '{"token":"legacyTok","team_id":"T0TEST001","api_app_id":"A0TEST001","event":{"type":"message","channel":"D0TEST001","user":"U0TEST001","text":"Hello","ts":"1700000000.000100","channel_type":"im"},"type":"event_callback","event_id":"Ev0TEST0001","event_time":1700000000}';
const vectorSignature = "v0=f29d6888034f7c2378a9269804f4373d2357bceb3ddabfcca62c32545e4a828b";
const verificationVector = '{"token":"legacyTok","challenge":"chal_abc123","type":"url_verification"}';
const verificationSignature = "v0=8027edef7f7cf3e524d2efbc0e2bb86978c4413aa519b68aae62f618bd60293f";

let providers: FakeProviders;
let app: TestApp;
let key: string;
let otherKey: string;
let seq = 100;

const nowSeconds = () => Math.floor(Date.now() / 1000);

function signed(body: string, timestamp = nowSeconds(), secret = signingSecret) {
  const signature = `v0=${createHmac("sha256", secret).update(`v0:${timestamp}:${body}`).digest("hex")}`;
  return { "x-slack-request-timestamp": String(timestamp), "x-slack-signature": signature };
}

function eventBody(team: string, event: Record<string, unknown>) {
  return JSON.stringify({
    token: "legacyTok",
    team_id: team,
    api_app_id: "A0TEST001",
    event: { type: "message", channel_type: "im", ts: `1700000000.${String(++seq).padStart(6, "0")}`, ...event },
    type: "event_callback",
    event_id: `Ev0TEST${seq}`,
    event_time: 1700000000,
    authorizations: [{ team_id: team, user_id: "U0BOT0001", is_bot: true }],
  });
}

function post(body: string, headers: Record<string, string> = signed(body)) {
  return app.request(path, { body, headers: { "content-type": "application/json", ...headers } });
}

function request(body: string, headers: Record<string, string>): WebhookRequest {
  return { method: "POST", url: `http://localhost${path}`, query: {}, headers, rawBody: Buffer.from(body) };
}

beforeAll(async () => {
  providers = await startFakeProviders();
  app = await startTestApp(providers.env);
  ({ apiKey: key } = await app.tenant("Team Bank"));
  ({ apiKey: otherKey } = await app.tenant("Other Team Bank"));
  // One Slack app installed in two workspaces: one signing secret, a bot token per workspace.
  await configureChannel(app, key, "teamchat", { team_id: "T0TEST001", bot_token: botToken, signing_secret: signingSecret });
  await configureChannel(app, otherKey, "teamchat", {
    team_id: "T0TEST002",
    bot_token: otherBotToken,
    signing_secret: signingSecret,
  });
  app.startWorker();
});

afterAll(async () => {
  await app?.close();
  await providers?.close();
});

describe("team chat signatures", () => {
  it("verifies the provider's test vectors within five minutes of their timestamp only", () => {
    const at = (s: number) => s * 1000;
    const headers = { "x-slack-request-timestamp": "1700000000", "x-slack-signature": vectorSignature };
    expect(verifySlackSignature(request(vector, headers), signingSecret, at(1700000000))).toBe(true);
    expect(verifySlackSignature(request(vector, headers), signingSecret, at(1700000000 + 299))).toBe(true);
    expect(verifySlackSignature(request(vector, headers), signingSecret, at(1700000000 + 301))).toBe(false);
    expect(verifySlackSignature(request(vector, headers), signingSecret, at(1700000000 - 301))).toBe(false);
    const verification = { "x-slack-request-timestamp": "1700000000", "x-slack-signature": verificationSignature };
    expect(verifySlackSignature(request(verificationVector, verification), signingSecret, at(1700000000))).toBe(true);
    expect(verifySlackSignature(request(`${vector} `, headers), signingSecret, at(1700000000))).toBe(false);
  });
});

describe("team chat webhook", () => {
  it("answers url_verification with its challenge when signed by a configured app", async () => {
    const res = await post(verificationVector);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ challenge: "chal_abc123" });
    const forged = await post(verificationVector, signed(verificationVector, nowSeconds(), "another_signing_secret"));
    expect(forged.status).toBe(401);
  });

  it("answers Slack's ssl_check with 200", async () => {
    const res = await app.request(path, {
      body: "ssl_check=1&token=legacyTok",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(res.status).toBe(200);
  });

  it("answers the test vector's message in its thread, with the workspace's bot token", async () => {
    const body = vector.replace('"ts":"1700000000.000100"', '"ts":"1700000000.000101"');
    const send = await providers.nextSend(async () => expect((await post(body)).status).toBe(200));
    expect(send.path).toBe("/slack/chat.postMessage");
    expect(send.headers.authorization).toBe(`Bearer ${botToken}`);
    expect(send.body).toMatchObject({ channel: "D0TEST001", thread_ts: "1700000000.000101" });
    expect(send.body.text.length).toBeGreaterThan(0);
    const conversation = await conversationOf(app, key, "teamchat", "D0TEST001:1700000000.000101");
    expect((await conversationMessages(app, key, conversation.id))[0]).toMatchObject({ role: "customer", content: "Hello" });
  });

  it("keeps a thread as one conversation and routes other workspaces to their tenant", async () => {
    const first = eventBody("T0TEST002", { channel: "C0TEAM002", user: "U0TEST002", text: "<@U0BOT0001> card fees?" });
    const firstTs = JSON.parse(first).event.ts as string;
    const send = await providers.nextSend(() => post(first));
    expect(send.headers.authorization).toBe(`Bearer ${otherBotToken}`);
    expect(send.body).toMatchObject({ channel: "C0TEAM002", thread_ts: firstTs });
    const conversation = await conversationOf(app, otherKey, "teamchat", `C0TEAM002:${firstTs}`);
    const [question] = await conversationMessages(app, otherKey, conversation.id);
    expect(question!.content).toBe("card fees?");
    const followUp = eventBody("T0TEST002", { channel: "C0TEAM002", user: "U0TEST002", text: "thanks", thread_ts: firstTs });
    const second = await providers.nextSend(() => post(followUp));
    expect(second.body.thread_ts).toBe(firstTs);
    const messages = await conversationMessages(app, otherKey, conversation.id);
    expect(messages.filter((m) => m.role === "customer")).toHaveLength(2);
  });

  it("answers a mention once although Slack sends it as a message and as app_mention", async () => {
    const asMessage = eventBody("T0TEST001", { channel: "C0TEAM001", user: "U0TEST003", text: "<@U0BOT0001> hi" });
    const ts = JSON.parse(asMessage).event.ts as string;
    const asMention = eventBody("T0TEST001", {
      type: "app_mention",
      channel: "C0TEAM001",
      user: "U0TEST003",
      ts,
      text: "<@U0BOT0001> hi",
    });
    await providers.nextSend(() => post(asMessage));
    const before = providers.sends.length;
    expect((await post(asMention)).status).toBe(200);
    await untilWebhooksSettled(app);
    expect(providers.sends.length).toBe(before);
  });

  it("answers 401 AUTH_INVALID for a bad, missing or stale signature, storing nothing", async () => {
    const body = eventBody("T0TEST001", { channel: "D0TEST009", user: "U0TEST009", text: "Hi" });
    const ts = JSON.parse(body).event.ts as string;
    const id = `D0TEST009:${ts}`;
    const wrong = await post(body, signed(body, nowSeconds(), "another_signing_secret"));
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe("AUTH_INVALID");
    expect((await post(body, {})).status).toBe(401);
    // A captured request replayed after the five-minute window.
    expect((await post(body, signed(body, nowSeconds() - 6 * 60))).status).toBe(401);
    expect(await inboundJobs(app, id)).toBe(0);
  });

  it("acknowledges and ignores events of a workspace no tenant has configured", async () => {
    const body = eventBody("T0NOBODY1", { channel: "D0TEST010", user: "U0TEST010", text: "Hi" });
    expect((await post(body)).status).toBe(200);
    expect(await inboundJobs(app, `D0TEST010:${JSON.parse(body).event.ts}`)).toBe(0);
  });

  it("acknowledges and drops an event whose ids no provider would send (thousands of characters), storing nothing", async () => {
    const long = "é".repeat(1_500);
    const bodies = [
      eventBody("T0TEST001", { channel: long, user: "U0TEST014", text: "Hi" }),
      eventBody("T0TEST001", { channel: "D0TEST014", user: "U0TEST014", text: "Hi", ts: `1700000000.${"9".repeat(3_000)}` }),
    ];
    for (const body of bodies) expect((await post(body)).status).toBe(200);
    const stored = { OR: [{ dedupeKey: { contains: "éé" } }, { dedupeKey: { contains: "D0TEST014" } }] };
    expect(await app.services.db.prisma.job.count({ where: stored })).toBe(0);
  });

  it("never answers bots (its own replies among them), edits or deletions", async () => {
    const bodies = [
      eventBody("T0TEST001", { channel: "D0TEST011", user: "U0BOT0001", text: "our own reply" }),
      eventBody("T0TEST001", { channel: "D0TEST011", bot_id: "B0OTHER01", text: "another bot", user: "U0OTHER01" }),
      eventBody("T0TEST001", { channel: "D0TEST011", subtype: "message_changed", user: "U0TEST011", text: "edit" }),
      eventBody("T0TEST001", { channel: "D0TEST011", subtype: "message_deleted", user: "U0TEST011" }),
    ];
    for (const body of bodies) expect((await post(body)).status).toBe(200);
    const jobs = await app.services.db.prisma.job.count({ where: { dedupeKey: { contains: "D0TEST011" } } });
    expect(jobs).toBe(0);
  });

  it("gives a retried delivery (X-Slack-Retry-Num) no second reply", async () => {
    const body = eventBody("T0TEST001", { channel: "D0TEST012", user: "U0TEST012", text: "opening hours?" });
    await providers.nextSend(() => post(body));
    const before = providers.sends.length;
    expect((await post(body, { ...signed(body), "x-slack-retry-num": "1", "x-slack-retry-reason": "http_timeout" })).status).toBe(
      200,
    );
    await untilWebhooksSettled(app);
    expect(providers.sends.length).toBe(before);
  });

  it("answers a file without text politely, asking for text", async () => {
    const body = eventBody("T0TEST001", { channel: "D0TEST013", user: "U0TEST013", text: "", files: [{ id: "F0TEST" }] });
    const send = await providers.nextSend(() => post(body));
    expect(send.body.channel).toBe("D0TEST013");
    expect(send.body.text).toMatch(/only read text/i);
  });

  it("retries when Slack says ok:false with a transient error, and gives up on a permanent one", async () => {
    providers.failNext({ status: 200, body: { ok: false, error: "service_unavailable" } });
    await post(eventBody("T0TEST001", { channel: "D0TEST014", user: "U0TEST014", text: "Hello" }));
    const retried = await conversationOf(app, key, "teamchat", "D0TEST014:");
    expect((await settledReply(app, key, retried.id)).delivery).toMatchObject({ status: "sent", attempts: 2 });

    providers.failNext({ status: 200, body: { ok: false, error: "channel_not_found" } });
    await post(eventBody("T0TEST001", { channel: "D0TEST015", user: "U0TEST015", text: "Hello" }));
    const refused = await conversationOf(app, key, "teamchat", "D0TEST015:");
    const reply = await settledReply(app, key, refused.id);
    expect(reply.delivery).toMatchObject({ status: "failed", attempts: 1 });
    expect(reply.delivery!.error).toMatch(/channel_not_found/);
  });

  it("answers 422 VALIDATION for a signed body that is not JSON", async () => {
    const res = await post("not json");
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("VALIDATION");
  });
});

describe("the questions a decline lists, as buttons", () => {
  const team = "T0TEST009";
  const dm = "D0FAQ0001";
  let faqKey: string;
  let declined: { thread: string; ts: string; buttons: Array<{ action_id: string; text: { text: string }; value: string }> };
  const toDm = (send: RecordedSend) => send.body.channel === dm;

  /** A press of a button, as Slack posts it to the interactivity URL: form-encoded, signed like an event. */
  function press(button: (typeof declined.buttons)[number], actionTs: string, secret = signingSecret) {
    const payload = {
      type: "block_actions",
      team: { id: team, domain: "faq-bank" },
      user: { id: "U0FAQ0001", username: "esi", team_id: team },
      api_app_id: "A0TEST001",
      container: { type: "message", message_ts: declined.ts, channel_id: dm, is_ephemeral: false, thread_ts: declined.thread },
      channel: { id: dm, name: "directmessage" },
      message: { type: "message", ts: declined.ts, thread_ts: declined.thread, text: "I'm not sure…" },
      actions: [{ ...button, block_id: "b1", type: "button", action_ts: actionTs }],
    };
    const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
    return app.request(path, {
      body,
      headers: { "content-type": "application/x-www-form-urlencoded", ...signed(body, nowSeconds(), secret) },
    });
  }

  beforeAll(async () => {
    faqKey = await faqTenantOn(app, "FAQ Team Bank", "teamchat", {
      team_id: team,
      bot_token: "xoxb-1000000009-test-bot-token-c",
      signing_secret: signingSecret,
    });
    const asked = eventBody(team, { channel: dm, user: "U0FAQ0001", text: "the limit for taking cash out" });
    const send = await providers.nextSend(() => post(asked), toDm);
    const [section, actions] = send.body.blocks;
    expect(section).toEqual({ type: "section", text: { type: "mrkdwn", text: send.body.text } });
    expect(send.body.text).toContain("Did you mean one of these? Reply with its number.\n1. How much can I withdraw");
    declined = { thread: send.body.thread_ts, ts: "1700000099.000001", buttons: actions.elements };
  });

  it("sends a button for each question, the question whole in its value", () => {
    expect(declined.buttons[0]).toEqual({
      type: "button",
      action_id: "ask_1",
      text: { type: "plain_text", text: "How much can I withdraw from an ATM per day?" },
      value: "ask:How much can I withdraw from an ATM per day?",
    });
  });

  it("answers the question of a pressed button in the decline's thread, once however often Slack posts the press", async () => {
    const [button] = declined.buttons;
    const send = await providers.nextSend(async () => expect((await press(button!, "1700000100.000001")).status).toBe(200), toDm);
    expect(send.body.thread_ts).toBe(declined.thread);
    expect(send.body.text).toContain("The daily ATM withdrawal limit is 1,000 EUR.");
    expect(send.body.blocks).toBeUndefined();
    const customer = `${dm}:${declined.thread}`;
    expect(await lastCustomerText(app, faqKey, "teamchat", customer)).toBe("How much can I withdraw from an ATM per day?");
    expect(await answeredChoice(app, faqKey, "teamchat", customer)).toBe(true);
    const before = providers.sends.length;
    expect((await press(button!, "1700000100.000001")).status).toBe(200);
    await untilWebhooksSettled(app);
    expect(providers.sends.length).toBe(before);
  });

  it("answers 401 AUTH_INVALID for a press signed with another secret, asking nothing", async () => {
    const res = await press(declined.buttons[0]!, "1700000101.000001", "another_signing_secret");
    expect(res.status).toBe(401);
    expect(res.body.code).toBe("AUTH_INVALID");
  });
});

describe("team chat replies", () => {
  it("converts markdown to Slack mrkdwn", () => {
    expect(
      toMrkdwn(
        "## Fees\n\n**Free** transfers, *no* ~~hidden~~ costs: see [our tariff](https://bank.test/fees?a=1&b=2).\n- a < b",
      ),
    ).toBe("*Fees*\n\n*Free* transfers, _no_ ~hidden~ costs: see <https://bank.test/fees?a=1&b=2|our tariff>.\n• a &lt; b");
  });

  it("keeps replies within 4,000 characters", () => {
    expect(teamchat.format("Our branches open at nine. ".repeat(400), {}).length).toBeLessThanOrEqual(4000);
  });
});
