import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { InboundMessage } from "../../src/pipeline/inbound.js";
import { handleInbound } from "../../src/pipeline/index.js";
import { startTestApp, type TestApp } from "../helpers/app.js";

// A customer's first message starts their conversation in the statement that stores it; these are the races around
// that statement: one live conversation per customer and channel, one stored message per provider delivery.

let app: TestApp;
let bank: { tenantId: string; apiKey: string };

beforeAll(async () => {
  app = await startTestApp();
  bank = await app.tenant("First Message Bank");
});

afterAll(async () => {
  await app?.close();
});

const smsFrom = (phone: string, text: string, providerMessageId: string): InboundMessage => ({
  tenantId: bank.tenantId,
  channel: "sms",
  customer: { id: phone.slice(1), phone },
  text,
  providerMessageId,
});

async function conversationsOf(customerId: string) {
  return app.services.db.prisma.conversation.findMany({
    where: { tenantId: bank.tenantId, customerId },
    include: { messages: { where: { role: "customer" }, orderBy: { createdAt: "asc" } } },
  });
}

describe("a customer's first message", () => {
  it("starts one conversation that counts the message and its reply", async () => {
    const result = await handleInbound(app.services, smsFrom("+15550100001", "Hello there", "sms:first-1"));
    expect(result.handledBy).toBe("ai");
    const [conversation, ...others] = await conversationsOf("15550100001");
    expect(others).toEqual([]);
    expect(conversation).toMatchObject({
      id: result.conversationId,
      channel: "sms",
      status: "open",
      customerPhone: "+15550100001",
    });
    expect(conversation!.messages.map((m) => [m.id, m.content])).toEqual([[result.customerMessageId, "Hello there"]]);
    const stored = await app.services.db.prisma.message.count({ where: { conversationId: result.conversationId } });
    expect(conversation!.messageCount).toBe(stored);
  });

  it("of two sent at once, one starts the conversation and the other joins it", async () => {
    const results = await Promise.all([
      handleInbound(app.services, smsFrom("+15550100002", "Hi", "sms:race-a")),
      handleInbound(app.services, smsFrom("+15550100002", "What are your opening hours?", "sms:race-b")),
    ]);
    expect(new Set(results.map((r) => r.conversationId)).size).toBe(1);
    expect(results.map((r) => r.handledBy)).toEqual(["ai", "ai"]);
    const [conversation, ...others] = await conversationsOf("15550100002");
    expect(others).toEqual([]);
    expect(conversation!.messages.map((m) => m.content).sort()).toEqual(["Hi", "What are your opening hours?"]);
    const stored = await app.services.db.prisma.message.count({ where: { conversationId: conversation!.id } });
    expect(conversation!.messageCount).toBe(stored);
  });

  it("delivered twice at once is stored and answered once", async () => {
    const delivery = smsFrom("+15550100003", "What does a transfer abroad cost?", "sms:twice");
    const results = await Promise.all([handleInbound(app.services, delivery), handleInbound(app.services, delivery)]);
    expect(results.map((r) => r.handledBy).sort()).toEqual(["ai", "duplicate"]);
    expect(new Set(results.map((r) => r.customerMessageId)).size).toBe(1);
    const [conversation, ...others] = await conversationsOf("15550100003");
    expect(others).toEqual([]);
    expect(conversation!.messages).toHaveLength(1);
    expect(await app.services.db.prisma.message.count({ where: { replyTo: results[0]!.customerMessageId } })).toBe(1);
  });
});
