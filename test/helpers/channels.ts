import { createHmac } from "node:crypto";
import { expect, vi } from "vitest";
import { inboundQueue } from "../../src/channels/inbound-job.js";
import { sendQueue } from "../../src/pipeline/deliver.js";
import { newBankFaq } from "../fixtures/new-bank-faq.js";
import type { TestApp } from "./app.js";

/** Configures a channel through the REST API, as a tenant does in the dashboard; returns its record. */
export async function configureChannel(
  app: TestApp,
  key: string,
  type: string,
  credentials: Record<string, string>,
  settings: Record<string, unknown> = {},
) {
  const res = await app.request(`/api/tenant/channels/${type}`, { method: "PUT", key, body: { credentials, settings } });
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return res.body as { id: string; routing_key: string; webhook_url: string };
}

/**
 * A tenant of its own with a channel of `type`, its knowledge the new bank's FAQ (test/fixtures/new-bank-faq.ts): a
 * question it cannot place gets a decline that lists the FAQ's questions. Returns its API key.
 */
export async function faqTenantOn(app: TestApp, name: string, type: string, credentials: Record<string, string>) {
  const { apiKey } = await app.tenant(name);
  await configureChannel(app, apiKey, type, credentials);
  const faq = await app.request("/api/knowledge/sources", {
    key: apiKey,
    body: { type: "manual", title: "Bank FAQ", content: newBankFaq },
  });
  expect(faq.status).toBe(201);
  return apiKey;
}

/** A chat-app channel's credentials for a phone number id, signed with the app secret. */
export const chatappCredentials = (phoneNumberId: string, appSecret: string) => ({
  phone_number_id: phoneNumberId,
  access_token: "EAAG-test-access-token-0001",
  verify_token: `vt-${appSecret}`,
  app_secret: appSecret,
});

/** Meta's X-Hub-Signature-256 of a raw body. */
export function metaSignature(rawBody: string, appSecret: string): string {
  return `sha256=${createHmac("sha256", appSecret).update(rawBody).digest("hex")}`;
}

/** Meta signs the escaped-Unicode form of its payloads: non-ASCII as \uXXXX, as the provider sends it. */
export function metaJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** A chat-app (WhatsApp Cloud API) webhook body carrying one customer message, as Meta sends it. */
export function chatappMessageEvent(phoneNumberId: string, message: Record<string, unknown>, contactName?: string): string {
  const contacts = contactName === undefined ? {} : { contacts: [{ profile: { name: contactName }, wa_id: message.from }] };
  return metaJson({
    object: "whatsapp_business_account",
    entry: [
      {
        id: "100000000000001",
        changes: [
          {
            field: "messages",
            value: {
              messaging_product: "whatsapp",
              metadata: { display_phone_number: "15550001111", phone_number_id: phoneNumberId },
              ...contacts,
              messages: [message],
            },
          },
        ],
      },
    ],
  });
}

let chatappMessages = 0;

/** A chat-app webhook body with one text message under a message id of its own, and that id. */
export function chatappTextDelivery(phoneNumberId: string, text = "Hello", from = "15551234567"): { body: string; id: string } {
  const id = `wamid.TEST${++chatappMessages}`;
  return {
    body: chatappMessageEvent(phoneNumberId, { from, id, timestamp: "1700000000", type: "text", text: { body: text } }),
    id,
  };
}

/** The messages of a conversation through the REST API, oldest first. */
export async function conversationMessages(app: TestApp, key: string, conversationId: string) {
  const res = await app.request(`/api/conversations/${conversationId}/messages?limit=100`, { key });
  expect(res.status).toBe(200);
  return res.body.messages as Array<{
    id: string;
    role: string;
    content: string;
    metadata: Record<string, unknown>;
    delivery: { status: string; attempts: number; error: string | null } | null;
  }>;
}

/** The tenant's conversations on a channel through the REST API. */
export async function conversationsOn(app: TestApp, key: string, channel: string) {
  const res = await app.request(`/api/conversations?channel=${channel}`, { key });
  expect(res.status).toBe(200);
  return res.body.conversations as Array<{ id: string; customer_phone: string | null; message_count: number; status: string }>;
}

/** A form post as Twilio and Africa's Talking send it: the fields URL-encoded in the order given. */
export function postForm(app: TestApp, path: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return app.request(path, {
    body: new URLSearchParams(fields).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
  });
}

/** The conversation of a channel's customer (found by its id), once the webhook's job has created it. */
export async function conversationOf(app: TestApp, key: string, channel: string, customerId: string) {
  return vi.waitFor(
    async () => {
      const res = await app.request(`/api/conversations?channel=${channel}&q=${encodeURIComponent(customerId)}`, { key });
      expect(res.status).toBe(200);
      const [found] = res.body.conversations as Array<{ id: string; status: string; customer_phone: string | null }>;
      expect(found).toBeDefined();
      return found!;
    },
    { timeout: 10_000, interval: 100 },
  );
}

/** The last message of `role` in the conversation of a channel's customer, as stored. */
export async function lastMessageOf(app: TestApp, key: string, channel: string, customerId: string, role: string) {
  const conversation = await conversationOf(app, key, channel, customerId);
  const messages = await conversationMessages(app, key, conversation.id);
  return messages.filter((m) => m.role === role).at(-1);
}

/** What the customer last wrote in their conversation on the channel, as stored. */
export const lastCustomerText = async (app: TestApp, key: string, channel: string, customerId: string) =>
  (await lastMessageOf(app, key, channel, customerId, "customer"))?.content;

/** Whether the AI's last reply to the customer answered a question chosen from a decline's list (analytics count it). */
export const answeredChoice = async (app: TestApp, key: string, channel: string, customerId: string) =>
  (await lastMessageOf(app, key, channel, customerId, "assistant"))?.metadata.chosen === true;

/** The delivery of a conversation's first AI reply, once it has settled as sent or failed. */
export async function settledReply(app: TestApp, key: string, conversationId: string) {
  return vi.waitFor(
    async () => {
      const reply = (await conversationMessages(app, key, conversationId)).find((m) => m.role === "assistant");
      expect(["sent", "failed"]).toContain(reply?.delivery?.status);
      return reply!;
    },
    { timeout: 15_000, interval: 100 },
  );
}

/** How many inbound jobs the webhook stored for a provider message id: 0 when it was refused or ignored. */
export function inboundJobs(app: TestApp, providerMessageId: string | number) {
  return app.services.db.prisma.job.count({
    where: { queue: inboundQueue, dedupeKey: { endsWith: `:${providerMessageId}` } },
  });
}

/**
 * Waits until every webhook acknowledged so far has had all its effects: no inbound or send job is running
 * or due. A redelivery's second reply, if there were one, would have been sent by then; checking the
 * provider's sends after this needs no waiting window.
 */
export async function untilWebhooksSettled(app: TestApp): Promise<void> {
  await vi.waitFor(
    async () => {
      const busy = await app.services.db.prisma.job.count({
        where: {
          queue: { in: [inboundQueue, sendQueue] },
          OR: [{ status: "running" }, { status: "pending", runAt: { lte: new Date() } }],
        },
      });
      expect(busy).toBe(0);
    },
    { interval: 50 },
  );
}
