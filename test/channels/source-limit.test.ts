import { randomInt } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiResponse, startTestApp, type TestApp } from "../helpers/app.js";
import { chatappTextDelivery, configureChannel, inboundJobs, metaSignature } from "../helpers/channels.js";

// Webhook floods are limited per client address: failures (bad signature or token, malformed body, an
// account nobody configured) from one address end in 429, while a provider's valid deliveries from
// another address go through. Each test speaks from fresh addresses (X-Forwarded-For through a trusted
// loopback proxy), so that counters of different tests and runs never meet in a shared Redis.
const max = 3;
const appSecret = "source-limit-app-secret";
const account = "200000000000555";

const freshIp = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
const delivery = (phoneNumberId = account) => chatappTextDelivery(phoneNumberId, "Hi");

let app: TestApp;

function postChatapp(ip: string, body: string, signature: string) {
  return app.request("/api/channels/chatapp", {
    body,
    headers: { "content-type": "application/json", "x-hub-signature-256": signature, "x-forwarded-for": ip },
  });
}

function expectRefused(res: ApiResponse) {
  expect(res.status).toBe(429);
  expect(res.body.code).toBe("RATE_LIMIT");
  expect(Number(res.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
}

beforeAll(async () => {
  app = await startTestApp({ TRUST_PROXY: "loopback", WEBHOOK_FAILURE_MAX: String(max), WEBHOOK_FAILURE_WINDOW_S: "60" });
  const { apiKey } = await app.tenant("Flooded Bank");
  await configureChannel(app, apiKey, "chatapp", {
    phone_number_id: account,
    access_token: "EAAG-test-access-token-0001",
    verify_token: "source-limit-verify",
    app_secret: appSecret,
  });
});

afterAll(async () => {
  await app?.close();
});

describe("webhook failures per client address", () => {
  it("answers a flood of bad signatures from one address with 429, while another address's deliveries go through", async () => {
    const attacker = freshIp();
    const provider = freshIp();
    for (let i = 0; i < max; i++) {
      const forged = delivery();
      expect((await postChatapp(attacker, forged.body, metaSignature(forged.body, "not-the-secret"))).status).toBe(401);
    }
    const next = delivery();
    expectRefused(await postChatapp(attacker, next.body, metaSignature(next.body, "not-the-secret")));
    // The address is refused whole until its window ends, a well-signed request too: it is shed, not served.
    const fromAttacker = delivery();
    expectRefused(await postChatapp(attacker, fromAttacker.body, metaSignature(fromAttacker.body, appSecret)));
    expect(await inboundJobs(app, fromAttacker.id)).toBe(0);
    const valid = delivery();
    expect((await postChatapp(provider, valid.body, metaSignature(valid.body, appSecret))).status).toBe(200);
    expect(await inboundJobs(app, valid.id)).toBe(1);
  });

  it("counts deliveries for accounts nobody configured, though each is acknowledged", async () => {
    const ip = freshIp();
    for (let i = 0; i < max; i++) {
      const unknown = delivery("299999999999999");
      expect((await postChatapp(ip, unknown.body, metaSignature(unknown.body, "any-secret"))).status).toBe(200);
    }
    const unknown = delivery("299999999999999");
    expectRefused(await postChatapp(ip, unknown.body, metaSignature(unknown.body, "any-secret")));
  });

  it("never counts a provider's valid deliveries", async () => {
    const ip = freshIp();
    for (let i = 0; i < max + 2; i++) {
      const valid = delivery();
      expect((await postChatapp(ip, valid.body, metaSignature(valid.body, appSecret))).status).toBe(200);
    }
  });

  const strangers: Array<[string, "GET" | "POST", string, string]> = [
    ["chat-app handshake", "GET", "/api/channels/chatapp?hub.mode=subscribe&hub.verify_token=guess&hub.challenge=1", ""],
    [
      "chat-app events",
      "POST",
      "/api/channels/chatapp",
      '{"entry":[{"changes":[{"value":{"metadata":{"phone_number_id":"299999999999999"},"messages":[{"from":"1","id":"w.1"}]}}]}]}',
    ],
    [
      "page messaging handshake",
      "GET",
      "/api/v1/channels/social/webhook?hub.mode=subscribe&hub.verify_token=guess&hub.challenge=1",
      "",
    ],
    [
      "page messaging events",
      "POST",
      "/api/v1/channels/social/webhook",
      '{"object":"page","entry":[{"id":"31000000099","messaging":[{"sender":{"id":"1"},"message":{"mid":"m.1","text":"hi"}}]}]}',
    ],
    ["SMS", "POST", "/api/channels/sms", "From=%2B15551234567&To=%2B15557654321&Body=hi&MessageSid=SM1"],
    ["bot messaging", "POST", "/api/v1/channels/botmsg/webhook", '{"update_id":1}'],
    ["microblog CRC", "GET", "/api/channels/microblog?crc_token=abc", ""],
    [
      "microblog events",
      "POST",
      "/api/channels/microblog",
      '{"for_user_id":"1","direct_message_events":[{"type":"message_create","id":"9","message_create":{"sender_id":"2","message_data":{"text":"hi"}}}]}',
    ],
    ["team chat", "POST", "/api/v1/channels/teamchat/webhook", '{"type":"url_verification","challenge":"x"}'],
    ["USSD", "POST", "/api/channels/ussd?token=guessed-token-000000", "sessionId=1&serviceCode=*1%23&phoneNumber=%2B1555&text="],
    ["voice", "POST", "/api/v1/voice/inbound", "CallSid=CA1&From=%2B15551234567&To=%2B15557654321"],
    ["voice status", "POST", "/api/v1/voice/status", "CallSid=CA1&From=%2B15551234567&To=%2B15557654321&CallStatus=completed"],
  ];

  it.each(strangers)("limits unsigned requests on the %s path", async (_name, method, path, body) => {
    const ip = freshIp();
    const form = !body.startsWith("{");
    const send = () =>
      app.request(path, {
        method,
        ...(method === "POST"
          ? {
              body,
              headers: {
                "content-type": form ? "application/x-www-form-urlencoded" : "application/json",
                "x-forwarded-for": ip,
              },
            }
          : { headers: { "x-forwarded-for": ip } }),
      });
    for (let i = 0; i < max; i++) expect((await send()).status).not.toBe(429);
    expectRefused(await send());
  });
});
