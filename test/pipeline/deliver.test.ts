import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AlreadyAnswered, appendMessage } from "../../src/conversations/append-message.js";
import { newId } from "../../src/db/ids.js";
import { deliverReply, type ReplyToStore } from "../../src/pipeline/deliver.js";
import { startTestApp, type TestApp } from "../helpers/app.js";

// A customer message gets one reply at most, whichever way the reply is stored: alone (an API answer to a tenant
// whose endpoints want no event) or in a transaction with its send job (a channel that sends through a provider).

let app: TestApp;
let bank: { tenantId: string; apiKey: string };

beforeAll(async () => {
  app = await startTestApp();
  bank = await app.tenant("One Reply Bank");
});

afterAll(async () => {
  await app?.close();
});

/** A conversation started through the API, and a further customer message in it that has no reply yet. */
async function unansweredMessage(): Promise<{ conversationId: string; messageId: string }> {
  const started = await app.request("/api/chat", { key: bank.apiKey, body: { message: "Hello" } });
  expect(started.status).toBe(200);
  const conversationId = started.body.conversationId as string;
  const message = await appendMessage(app.services.db.prisma, {
    id: newId("msg"),
    tenantId: bank.tenantId,
    conversationId,
    role: "customer",
    content: "What does a transfer abroad cost?",
    metadata: {},
  });
  return { conversationId, messageId: message.id };
}

const replyTo = (
  target: { conversationId: string; messageId: string },
  channel: string,
  via?: ReplyToStore["via"],
): ReplyToStore => ({
  id: newId("msg"),
  tenantId: bank.tenantId,
  conversationId: target.conversationId,
  channel,
  role: "assistant",
  content: "A transfer abroad costs 5 EUR.",
  metadata: {},
  replyTo: target.messageId,
  via,
});

async function stored(target: { conversationId: string; messageId: string }) {
  const prisma = app.services.db.prisma;
  const [replies, messages, conversation] = await Promise.all([
    prisma.message.count({ where: { replyTo: target.messageId } }),
    prisma.message.count({ where: { conversationId: target.conversationId } }),
    prisma.conversation.findUniqueOrThrow({ where: { id: target.conversationId } }),
  ]);
  return { replies, messages, counted: conversation.messageCount };
}

describe("storing a reply", () => {
  it.each([
    ["sent with the response, without a transaction", "api", undefined],
    ["sent through a provider, in a transaction with its send job", "api", { channelId: "chan_none", channel: "sms" }],
  ] as const)("stores one of two replies to one message at once, %s", async (_how, channel, via) => {
    const target = await unansweredMessage();
    const outcomes = await Promise.allSettled([
      deliverReply(app.services, replyTo(target, channel, via)),
      deliverReply(app.services, replyTo(target, channel, via)),
    ]);
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
    const refused = outcomes.flatMap((o) => (o.status === "rejected" ? [o.reason as unknown] : []));
    expect(refused).toEqual([expect.any(AlreadyAnswered)]);
    expect((refused[0] as AlreadyAnswered).customerMessageId).toBe(target.messageId);
    // The refused reply left nothing behind: no message, no count in the conversation, no send job.
    const after = await stored(target);
    expect(after).toEqual({ replies: 1, messages: after.counted, counted: after.counted });
    const reply = await app.services.db.prisma.message.findUniqueOrThrow({ where: { replyTo: target.messageId } });
    const sends = await app.services.db.prisma.job.count({ where: { queue: "deliver.send", dedupeKey: reply.id } });
    expect(sends).toBe(via ? 1 : 0);
  });

  it("refuses a later reply to a message already answered", async () => {
    const target = await unansweredMessage();
    await deliverReply(app.services, replyTo(target, "api"));
    await expect(deliverReply(app.services, replyTo(target, "api"))).rejects.toBeInstanceOf(AlreadyAnswered);
    expect((await stored(target)).replies).toBe(1);
  });
});
