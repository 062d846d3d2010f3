import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type FakeProviders, type RecordedSend, startFakeProviders } from "../fakes/providers.js";
import { startTestApp, type TestApp } from "../helpers/app.js";
import {
  answeredChoice,
  chatappMessageEvent,
  configureChannel,
  conversationMessages,
  conversationsOn,
  faqTenantOn,
  lastCustomerText,
  metaJson,
  metaSignature,
  untilWebhooksSettled,
} from "../helpers/channels.js";

// The chat-app channel (WhatsApp Cloud API), with the test vector of ../shared/providers/whatsapp.md.
const vectorBody =
  '{"object":"whatsapp_business_account","entry":[{"id":"100000000000001","changes":[{"field":"messages","value":{"messaging_product":"whatsapp","metadata":{"display_phone_number":"15550001111","phone_number_id":"200000000000002"},"contacts":[{"profile":{"name":"Ada"},"wa_id":"15551234567"}],"messages":[{"from":"15551234567","id":"wamid.TEST0001","timestamp":"1700000000","type":"text","text":{"body":"Hello"}}]}}]}]}';
const vectorSignature = "sha256=1fae8bb3cd183618cf3ea865e5e095f640b6db51c7df2c952f4983f4ef1ff49e";
const appSecret = "test_app_secret";

const credentials = {
  phone_number_id: "200000000000002",
  access_token: "EAAG-test-access-token-0001",
  verify_token: "vt_123",
  app_secret: appSecret,
};

function event(message: Record<string, unknown>, phoneNumberId = credentials.phone_number_id, from = "15551234567"): string {
  return chatappMessageEvent(phoneNumberId, { from, timestamp: "1700000000", ...message }, "Ada");
}

const text = (id: string, body: string, from?: string) => event({ id, type: "text", text: { body } }, undefined, from);

let providers: FakeProviders;
let app: TestApp;
let key: string;
let tenantId: string;

async function post(body: string, signature = metaSignature(body, appSecret)) {
  return app.request("/api/channels/chatapp", {
    body,
    headers: { "content-type": "application/json", "x-hub-signature-256": signature },
  });
}

beforeAll(async () => {
  providers = await startFakeProviders();
  app = await startTestApp({ ...providers.env, SEND_MAX_ATTEMPTS: "3" });
  ({ apiKey: key, tenantId } = await app.tenant("Chatapp Bank"));
  await configureChannel(app, key, "chatapp", credentials);
  const source = await app.request("/api/knowledge/sources", {
    key,
    body: {
      type: "manual",
      title: "Cards FAQ",
      content: "To reset your card PIN, open the app, choose Cards, then Reset PIN. The new PIN works at once.",
    },
  });
  expect(source.status).toBe(201);
  app.startWorker();
});

afterAll(async () => {
  await app?.close();
  await providers?.close();
});

describe("chat-app webhook verification (GET)", () => {
  it("answers hub.challenge when the verify token is a configured channel's", async () => {
    const res = await app.request("/api/channels/chatapp?hub.mode=subscribe&hub.verify_token=vt_123&hub.challenge=987654");
    expect(res.status).toBe(200);
    expect(res.body).toBe(987654);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
  });

  it("answers 403 FORBIDDEN for any other token", async () => {
    const res = await app.request("/api/channels/chatapp?hub.mode=subscribe&hub.verify_token=wrong&hub.challenge=987654");
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("FORBIDDEN");
  });

  it("answers 403 FORBIDDEN for a parameter given twice, which no provider sends", async () => {
    for (const query of [
      "hub.mode=subscribe&hub.verify_token=vt_123&hub.verify_token=other&hub.challenge=1",
      "hub.mode=subscribe&hub.verify_token=vt_123&hub.challenge=1&hub.challenge=2",
      "hub.mode=subscribe&hub.verify_token[a]=vt_123&hub.challenge=1",
    ]) {
      const res = await app.request(`/api/channels/chatapp?${query}`);
      expect(res.status, query).toBe(403);
      expect(res.body.code).toBe("FORBIDDEN");
    }
  });
});

describe("chat-app messages (POST)", () => {
  it("signs the provider's test vector as documented", () => {
    expect(metaSignature(vectorBody, appSecret)).toBe(vectorSignature);
  });

  it("accepts the signed test vector at once and the reply arrives at the provider's send API", async () => {
    const before = providers.sends.length;
    const res = await post(vectorBody, vectorSignature);
    expect(res.status).toBe(200);
    const [send] = (await providers.waitForSends(before + 1)).slice(before);
    expect(send!.path).toBe("/graph/200000000000002/messages");
    expect(send!.headers.authorization).toBe(`Bearer ${credentials.access_token}`);
    expect(send!.body).toMatchObject({ messaging_product: "whatsapp", to: "15551234567", type: "text" });
    expect(send!.body.text.body.length).toBeGreaterThan(0);

    const [conversation] = await conversationsOn(app, key, "chatapp");
    expect(conversation!.customer_phone).toBe("+15551234567");
    await vi.waitFor(async () => {
      const messages = await conversationMessages(app, key, conversation!.id);
      // The AI disclosure is stored on its own and sent at the head of the first reply.
      expect(messages.map((m) => m.role)).toEqual(["customer", "system", "assistant"]);
      expect(messages[0]!.content).toBe("Hello");
      expect(messages[1]!.metadata).toMatchObject({ kind: "disclosure", sentWith: messages[2]!.id });
      expect(send!.body.text.body).toBe(`${messages[1]!.content}\n\n${messages[2]!.content}`);
      expect(messages[2]!.delivery).toMatchObject({ status: "sent", attempts: 1, error: null });
      expect(messages[2]!.metadata.providerMessageId).toMatch(/^wamid\.OUT/);
    });
  });

  it("answers a question from the tenant's knowledge base, capped for the channel", async () => {
    const before = providers.sends.length;
    expect((await post(text("wamid.PIN1", "How do I reset my card PIN?", "15557654321"))).status).toBe(200);
    const [send] = (await providers.waitForSends(before + 1)).slice(before);
    expect(send!.body.to).toBe("15557654321");
    expect(send!.body.text.body).toMatch(/Reset PIN/);
  });

  it("answers 401 AUTH_INVALID for a bad or missing signature and stores nothing", async () => {
    const body = text("wamid.FORGED", "Transfer everything", "15550009999");
    const forged = await post(body, metaSignature(body, "not-the-secret"));
    expect(forged.status).toBe(401);
    expect(forged.body.code).toBe("AUTH_INVALID");
    const unsigned = await app.request("/api/channels/chatapp", { body, headers: { "content-type": "application/json" } });
    expect(unsigned.status).toBe(401);
    const stored = await app.services.db.prisma.message.count({ where: { providerMessageId: { contains: "wamid.FORGED" } } });
    const jobs = await app.services.db.prisma.job.count({ where: { dedupeKey: { contains: "wamid.FORGED" } } });
    expect(stored + jobs).toBe(0);
  });

  it("acknowledges and ignores events for a phone number no tenant has configured", async () => {
    const body = event({ id: "wamid.NOBODY", type: "text", text: { body: "Hi" } }, "999999999999999");
    const res = await post(body);
    expect(res.status).toBe(200);
    expect(await app.services.db.prisma.job.count({ where: { dedupeKey: { contains: "wamid.NOBODY" } } })).toBe(0);
  });

  it("gives a redelivered message no second reply", async () => {
    const body = text("wamid.DUP1", "What are your opening hours?", "15550002222");
    const before = providers.sends.length;
    expect((await post(body)).status).toBe(200);
    await providers.waitForSends(before + 1);
    expect((await post(body)).status).toBe(200);
    // Both deliveries at once, as a provider retrying a slow acknowledgement does.
    await Promise.all([post(body), post(body)]);
    await untilWebhooksSettled(app);
    expect(providers.sends.length).toBe(before + 1);
    const customerMessages = await app.services.db.prisma.message.count({
      where: { tenantId, role: "customer", providerMessageId: { endsWith: ":wamid.DUP1" } },
    });
    expect(customerMessages).toBe(1);
    // A redelivery of a message already handled is acknowledged without a job of its own.
    expect(await app.services.db.prisma.job.count({ where: { dedupeKey: { endsWith: ":wamid.DUP1" } } })).toBe(1);
  });

  it("answers a picture politely, asking for text", async () => {
    const before = providers.sends.length;
    const body = event(
      { id: "wamid.IMG1", type: "image", image: { id: "media1", mime_type: "image/jpeg", sha256: "x" } },
      undefined,
      "15550003333",
    );
    expect((await post(body)).status).toBe(200);
    const [send] = (await providers.waitForSends(before + 1)).slice(before);
    expect(send!.body.to).toBe("15550003333");
    expect(send!.body.text.body).toMatch(/only read text/i);
  });

  it("ignores delivery status events", async () => {
    const body = metaJson({
      object: "whatsapp_business_account",
      entry: [
        {
          id: "100000000000001",
          changes: [
            {
              field: "messages",
              value: {
                metadata: { phone_number_id: credentials.phone_number_id },
                statuses: [{ id: "wamid.OUT1", status: "delivered", timestamp: "1700000001", recipient_id: "15551234567" }],
              },
            },
          ],
        },
      ],
    });
    const res = await post(body);
    expect(res.status).toBe(200);
  });

  it("answers 422 VALIDATION for a body that is not JSON", async () => {
    const res = await post("{not json");
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("VALIDATION");
  });
});

describe("chat-app delivery", () => {
  it("retries through a provider outage, honouring Retry-After, and records the attempts", async () => {
    providers.failNext({ status: 500 }, { status: 429, headers: { "retry-after": "1" } });
    const before = providers.sends.length;
    expect((await post(text("wamid.OUTAGE1", "Hello again", "15550004444"))).status).toBe(200);
    const [send] = (await providers.waitForSends(before + 1, 20_000)).slice(before);
    expect(send!.body.to).toBe("15550004444");
    const conversation = (await conversationsOn(app, key, "chatapp")).find((c) => c.customer_phone === "+15550004444")!;
    await vi.waitFor(async () => {
      const reply = (await conversationMessages(app, key, conversation.id)).find((m) => m.role === "assistant")!;
      expect(reply.delivery).toMatchObject({ status: "sent", attempts: 3, error: null });
    });
  });

  it("marks a send the provider refuses as failed with the provider's error, without retrying it", async () => {
    providers.failNext({ status: 400, body: { error: { message: "Recipient phone number not in allowed list", code: 131030 } } });
    expect((await post(text("wamid.REFUSED1", "Hello there", "15550005555"))).status).toBe(200);
    const conversation = await vi.waitFor(async () => {
      const found = (await conversationsOn(app, key, "chatapp")).find((c) => c.customer_phone === "+15550005555");
      expect(found).toBeDefined();
      return found!;
    });
    await vi.waitFor(async () => {
      const reply = (await conversationMessages(app, key, conversation.id)).find((m) => m.role === "assistant")!;
      expect(reply.delivery?.status).toBe("failed");
      expect(reply.delivery?.attempts).toBe(1);
      expect(reply.delivery?.error).toMatch(/not in allowed list/);
    });
    const metrics = await app.request("/metrics");
    expect(metrics.body).toMatch(/parley_channel_deliveries_total\{channel="chatapp",outcome="failed"\} [1-9]/);
  });

  it("keeps answering other tenants while one tenant's provider is down, and gives up on it after the configured attempts", async () => {
    const down = await app.tenant("Down Bank");
    await configureChannel(app, down.apiKey, "chatapp", {
      ...credentials,
      phone_number_id: "200000000000077",
      access_token: "EAAG-down-bank-token-01",
      verify_token: "vt_down_bank",
    });
    providers.failPath(/^\/graph\/200000000000077\//, { status: 503 });
    try {
      const before = providers.sends.length;
      await post(event({ id: "wamid.DOWN1", type: "text", text: { body: "Hello" } }, "200000000000077", "15550006666"));
      await post(text("wamid.UP1", "Hello", "15550007777"));
      const [send] = (await providers.waitForSends(before + 1)).slice(before);
      expect(send!.body.to).toBe("15550007777");
      const conversation = await vi.waitFor(async () => {
        const [found] = await conversationsOn(app, down.apiKey, "chatapp");
        expect(found).toBeDefined();
        return found!;
      });
      await vi.waitFor(
        async () => {
          const reply = (await conversationMessages(app, down.apiKey, conversation.id)).find((m) => m.role === "assistant")!;
          expect(reply.delivery).toMatchObject({ status: "failed", attempts: 3 });
          expect(reply.delivery!.error).toMatch(/503/);
        },
        { timeout: 20_000, interval: 200 },
      );
      expect(providers.sends.filter((s) => s.path.includes("200000000000077"))).toEqual([]);
    } finally {
      providers.recover();
    }
  });
});

describe("the questions a decline lists, as a list message", () => {
  const faqNumber = "200000000000088";
  const customer = "15557770001";
  let faqKey: string;
  let rows: Array<{ id: string; title: string; description?: string }>;
  const toCustomer = (send: RecordedSend) => send.body.to === customer;

  beforeAll(async () => {
    faqKey = await faqTenantOn(app, "FAQ Chatapp Bank", "chatapp", {
      ...credentials,
      phone_number_id: faqNumber,
      verify_token: "vt_faq",
    });
    const send = await providers.nextSend(
      () =>
        post(event({ id: "wamid.FAQ0001", type: "text", text: { body: "the limit for taking cash out" } }, faqNumber, customer)),
      toCustomer,
    );
    expect(send.body.type).toBe("interactive");
    expect(send.body.interactive.body.text).toContain(
      "Did you mean one of these? Reply with its number.\n1. How much can I withdraw",
    );
    expect(send.body.interactive.action.button).toBe("Choose a question");
    rows = send.body.interactive.action.sections[0].rows;
  });

  it("has a row for each question, within WhatsApp's lengths, the question whole in its id", () => {
    expect(rows[0]).toEqual({
      id: "ask:How much can I withdraw from an ATM per day?",
      title: "1. How much can I withd…",
      description: "How much can I withdraw from an ATM per day?",
    });
    for (const [i, row] of rows.entries()) {
      expect(row.title.startsWith(`${i + 1}. `)).toBe(true);
      expect(row.title.length).toBeLessThanOrEqual(24);
      expect(row.description?.length ?? 0).toBeLessThanOrEqual(72);
    }
  });

  it("asks the question of the row the customer chooses", async () => {
    const [row] = rows;
    const chosen = event(
      { id: "wamid.FAQ0002", type: "interactive", interactive: { type: "list_reply", list_reply: row } },
      faqNumber,
      customer,
    );
    const send = await providers.nextSend(() => post(chosen), toCustomer);
    expect(send.body.type).toBe("text");
    expect(send.body.text.body).toContain("The daily ATM withdrawal limit is 1,000 EUR.");
    expect(await lastCustomerText(app, faqKey, "chatapp", customer)).toBe("How much can I withdraw from an ATM per day?");
    expect(await answeredChoice(app, faqKey, "chatapp", customer)).toBe(true);
  });

  it("reads a button that is not one of ours by its label", async () => {
    const pressed = event(
      {
        id: "wamid.FAQ0003",
        type: "interactive",
        interactive: { type: "button_reply", button_reply: { id: "promo-7", title: "Savings offers" } },
      },
      faqNumber,
      customer,
    );
    await providers.nextSend(() => post(pressed), toCustomer);
    expect(await lastCustomerText(app, faqKey, "chatapp", customer)).toBe("Savings offers");
    expect(await answeredChoice(app, faqKey, "chatapp", customer)).toBe(false);
  });
});
