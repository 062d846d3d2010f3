import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { microblog } from "../../src/channels/microblog.js";
import { type FakeProviders, startFakeProviders } from "../fakes/providers.js";
import { startTestApp, type TestApp } from "../helpers/app.js";
import {
  configureChannel,
  conversationMessages,
  conversationOf,
  inboundJobs,
  settledReply,
  untilWebhooksSettled,
} from "../helpers/channels.js";

// Short-post social direct messages (X Account Activity API), with the test vectors of
// ../shared/providers/x-account-activity.md.
const path = "/api/channels/microblog";
const consumerSecret = "test_consumer_secret";
const vector =
  '{"for_user_id":"800000008","direct_message_events":[{"type":"message_create","id":"900000000000000009","created_timestamp":"1700000000000","message_create":{"target":{"recipient_id":"800000008"},"sender_id":"100000010","message_data":{"text":"Hello","entities":{"hashtags":[],"symbols":[],"user_mentions":[],"urls":[]}}}}]}';
const vectorSignature = "sha256=S5XIUbRdBqeYQq2isNS/MnREg2zVxlF7spVsptGAR/s=";
const accessToken = "x-user-access-token-of-tenant-a-0001";
const otherAccessToken = "x-user-access-token-of-tenant-b-0002";

let providers: FakeProviders;
let app: TestApp;
let key: string;
let otherKey: string;
let eventId = 900000000000000100n;

const sign = (body: string, secret = consumerSecret) => `sha256=${createHmac("sha256", secret).update(body).digest("base64")}`;

function dm(account: string, sender: string, messageData: Record<string, unknown>, id = String(++eventId)) {
  return JSON.stringify({
    for_user_id: account,
    direct_message_events: [
      {
        type: "message_create",
        id,
        created_timestamp: "1700000000000",
        message_create: { target: { recipient_id: account }, sender_id: sender, message_data: messageData },
      },
    ],
    users: { [sender]: { id: sender, name: "Customer", screen_name: "customer" } },
  });
}

function post(body: string, signature: string | null = sign(body)) {
  return app.request(path, {
    body,
    headers: { "content-type": "application/json", ...(signature === null ? {} : { "x-twitter-webhooks-signature": signature }) },
  });
}

beforeAll(async () => {
  providers = await startFakeProviders();
  app = await startTestApp(providers.env);
  ({ apiKey: key } = await app.tenant("Microblog Bank"));
  ({ apiKey: otherKey } = await app.tenant("Other Microblog Bank"));
  // Both accounts are subscribed to one X app: one consumer secret signs events for both.
  await configureChannel(app, key, "microblog", {
    user_id: "800000008",
    consumer_secret: consumerSecret,
    access_token: accessToken,
  });
  await configureChannel(app, otherKey, "microblog", {
    user_id: "800000099",
    consumer_secret: consumerSecret,
    access_token: otherAccessToken,
  });
  app.startWorker();
});

afterAll(async () => {
  await app?.close();
  await providers?.close();
});

describe("microblog CRC (GET)", () => {
  it("answers the provider's test vector with the consumer secret's signature", async () => {
    const res = await app.request(`${path}?crc_token=crc_test_token_123`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/application\/json/);
    expect(res.body).toEqual({ response_token: "sha256=5twVdWfP1pq+LmMfANnX6wUBwav6QKR2ECmYzL4rqHo=" });
  });

  it("uses the named account's own app when several apps are configured, and refuses to guess", async () => {
    const { apiKey } = await app.tenant("Own App Bank");
    await configureChannel(app, apiKey, "microblog", {
      user_id: "800000077",
      consumer_secret: "own_app_consumer_secret_77",
      access_token: "x-user-access-token-own-app-077",
    });
    const ambiguous = await app.request(`${path}?crc_token=abc`);
    expect(ambiguous.status).toBe(403);
    expect(ambiguous.body.code).toBe("FORBIDDEN");
    const own = await app.request(`${path}?crc_token=abc&account=800000077`);
    expect(own.body).toEqual({ response_token: sign("abc", "own_app_consumer_secret_77") });
    const shared = await app.request(`${path}?crc_token=abc&account=800000008`);
    expect(shared.body).toEqual({ response_token: sign("abc") });
    const unknown = await app.request(`${path}?crc_token=abc&account=123`);
    expect(unknown.status).toBe(403);
    // A parameter given twice names nothing: with two apps configured, the request is as ambiguous as without it.
    for (const query of ["account=800000077&account=800000008", "channel=a&channel=b", "crc_token=xyz"]) {
      const twice = await app.request(`${path}?crc_token=abc&${query}`);
      expect(twice.status, query).toBe(403);
      expect(twice.body.code).toBe("FORBIDDEN");
    }
  });

  it("answers for the channel the URL names, which another tenant's claim on the account cannot make ambiguous", async () => {
    const { apiKey } = await app.tenant("Claiming Bank");
    const claim = await configureChannel(app, apiKey, "microblog", {
      user_id: "800000099",
      consumer_secret: "claimers_own_consumer_secret",
      access_token: "x-user-access-token-claimer-0003",
    });
    const owner = await app.request("/api/tenant/channels/microblog", { key: otherKey });
    const named = await app.request(`${path}?crc_token=abc&channel=${owner.body.id}`);
    expect(named.body).toEqual({ response_token: sign("abc") });
    const claimer = await app.request(`${path}?crc_token=abc&channel=${claim.id}`);
    expect(claimer.body).toEqual({ response_token: sign("abc", "claimers_own_consumer_secret") });
    expect((await app.request(`${path}?crc_token=abc&channel=chn_00000000000000000000000000`)).status).toBe(403);
  });

  it("answers 403 without a crc_token", async () => {
    expect((await app.request(path)).status).toBe(403);
  });

  it("is no signing oracle: a CRC answer over an event body never verifies as that event's signature", async () => {
    const body = dm("800000008", "100000066", { text: "Transfer everything" }, "900000000000000666");
    const crc = await app.request(`${path}?crc_token=${encodeURIComponent(body)}&account=800000008`);
    expect(crc.status).toBe(403);
    expect(crc.body.response_token).toBeUndefined();
    // Even a token that is valid JSON once padded is refused: a body of the token's shape is no event.
    const bare = "e30=";
    const answer = await app.request(`${path}?crc_token=${encodeURIComponent(bare)}&account=800000008`);
    expect(answer.status).toBe(200);
    const replayed = await post(bare, answer.body.response_token);
    expect([401, 422]).toContain(replayed.status);
    const forged = await post(body, sign(body, "guessed-secret-of-nobody"));
    expect(forged.status).toBe(401);
    expect(await inboundJobs(app, "900000000000000666")).toBe(0);
  });
});

describe("microblog direct messages (POST)", () => {
  it("signs the provider's test vector as documented", () => {
    expect(sign(vector)).toBe(vectorSignature);
  });

  it("accepts the signed test vector and replies through the DM API with the account's token", async () => {
    const send = await providers.nextSend(async () => expect((await post(vector, vectorSignature)).status).toBe(200));
    expect(send.path).toBe("/x/2/dm_conversations/with/100000010/messages");
    expect(send.headers.authorization).toBe(`Bearer ${accessToken}`);
    expect(send.body.text.length).toBeGreaterThan(0);
    const conversation = await conversationOf(app, key, "microblog", "100000010");
    expect(conversation.customer_phone).toBeNull();
    expect((await conversationMessages(app, key, conversation.id))[0]).toMatchObject({ role: "customer", content: "Hello" });
  });

  it("routes by for_user_id to the account's tenant", async () => {
    const send = await providers.nextSend(async () =>
      expect((await post(dm("800000099", "100000011", { text: "Hi" }))).status).toBe(200),
    );
    expect(send.headers.authorization).toBe(`Bearer ${otherAccessToken}`);
    await conversationOf(app, otherKey, "microblog", "100000011");
  });

  it("answers 401 AUTH_INVALID for a wrong or missing signature, storing nothing", async () => {
    const id = String(++eventId);
    const body = dm("800000008", "100000012", { text: "Hi" }, id);
    const wrong = await post(body, sign(body, "another_consumer_secret"));
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe("AUTH_INVALID");
    expect((await post(body, null)).status).toBe(401);
    expect(await inboundJobs(app, id)).toBe(0);
  });

  it("acknowledges and ignores events for an account no tenant has configured", async () => {
    const id = String(++eventId);
    const res = await post(dm("812345678", "100000013", { text: "Hi" }, id));
    expect(res.status).toBe(200);
    expect(await inboundJobs(app, id)).toBe(0);
  });

  it("never answers the account's own messages (its replies come back as events)", async () => {
    const id = String(++eventId);
    expect((await post(dm("800000008", "800000008", { text: "Thanks for writing" }, id))).status).toBe(200);
    expect(await inboundJobs(app, id)).toBe(0);
  });

  it("ignores events that are not direct messages", async () => {
    const body = JSON.stringify({
      for_user_id: "800000008",
      favorite_events: [{ id: "f1", favorited_status: { id_str: "1" }, user: { id_str: "100000014" } }],
    });
    expect((await post(body)).status).toBe(200);
  });

  it("gives a redelivered event no second reply", async () => {
    const body = dm("800000008", "100000015", { text: "What are your fees?" });
    await providers.nextSend(() => post(body));
    const before = providers.sends.length;
    expect((await post(body)).status).toBe(200);
    await untilWebhooksSettled(app);
    expect(providers.sends.length).toBe(before);
  });

  it("answers a picture politely, asking for text", async () => {
    const body = dm("800000008", "100000016", { text: "", attachment: { type: "media", media: { type: "photo" } } });
    const send = await providers.nextSend(() => post(body));
    expect(send.path).toBe("/x/2/dm_conversations/with/100000016/messages");
    expect(send.body.text).toMatch(/only read text/i);
  });

  it("retries through a provider outage honouring Retry-After, then delivers", async () => {
    providers.failNext({ status: 503 }, { status: 429, headers: { "retry-after": "1" } });
    expect((await post(dm("800000008", "100000017", { text: "Hello" }))).status).toBe(200);
    const conversation = await conversationOf(app, key, "microblog", "100000017");
    const reply = await settledReply(app, key, conversation.id);
    expect(reply.delivery).toMatchObject({ status: "sent", attempts: 3, error: null });
  });

  it("formats replies as plain text within 10,000 characters", () => {
    const formatted = microblog.format(`## Cards\n\n${"Your new card arrives within five working days. ".repeat(300)}`, {});
    expect(formatted.length).toBeLessThanOrEqual(10_000);
    expect(formatted).not.toContain("##");
  });
});
