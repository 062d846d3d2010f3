import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChannelEvent, ConfiguredChannel } from "../../src/channels/adapter.js";
import { inboundMessage, inboundQueue, processInbound } from "../../src/channels/inbound-job.js";
import { channelById } from "../../src/channels/store.js";
import { providerMessageKey } from "../../src/channels/webhook.js";
import type { JobRecord } from "../../src/jobs/queue.js";
import { routeInbound } from "../../src/pipeline/router.js";
import { type FakeProviders, startFakeProviders } from "../fakes/providers.js";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { configureChannel } from "../helpers/channels.js";

// What a process that dies mid-pipeline leaves behind, set up exactly: the customer message stored by the
// router, no reply yet, and the inbound job due again. The job's next run must answer it, and only once.

let providers: FakeProviders;
let app: TestApp;
let channel: ConfiguredChannel;
let messageId = 0;

beforeAll(async () => {
  providers = await startFakeProviders();
  app = await startTestApp(providers.env);
  const { apiKey } = await app.tenant("Resume Bank");
  const configured = await configureChannel(app, apiKey, "botmsg", {
    bot_token: "7000000005:AAHresumeBotToken_000000000000005",
    secret_token: "resume_s3cret-Token",
  });
  channel = (await channelById(app.services, configured.id))!;
});

afterAll(async () => {
  await app?.close();
  await providers?.close();
});

function event(chatId: number): ChannelEvent {
  return {
    type: "botmsg",
    routingKey: channel.routingKey,
    providerMessageId: String(++messageId),
    customer: { id: String(chatId), name: "Kofi" },
    text: "How do I reset my card PIN?",
    kind: "text",
  };
}

/** Stores the customer message as the router does, and stops there: the process died before the reply. */
async function storedUnanswered(chatId: number): Promise<{ job: JobRecord; conversationId: string }> {
  const e = event(chatId);
  const providerMessageId = providerMessageKey(channel, e);
  const routed = await routeInbound(app.services, inboundMessage(channel, e, providerMessageId));
  const job: JobRecord = {
    id: `job_resume_${messageId}`,
    tenantId: channel.tenantId,
    queue: inboundQueue,
    payload: { channelId: channel.id, providerMessageId, event: e },
    attempts: 2,
    maxAttempts: 8,
  };
  return { job, conversationId: routed.conversation.id };
}

const repliesIn = (conversationId: string) =>
  app.services.db.prisma.message.findMany({ where: { conversationId, role: "assistant" } });

describe("an inbound job run again after its process died", () => {
  it("answers a customer message that was stored but not answered, with one reply sent once", async () => {
    const { job, conversationId } = await storedUnanswered(810_000_001);
    const customer = await app.services.db.prisma.message.findFirstOrThrow({ where: { conversationId, role: "customer" } });

    await processInbound(app.services, job);
    const replies = await repliesIn(conversationId);
    expect(replies).toHaveLength(1);
    expect(replies[0]).toMatchObject({ replyTo: customer.id, deliveryStatus: "pending" });

    // A further run (the job's lease lapsed, or the process died before completing it) adds nothing.
    await processInbound(app.services, job);
    expect(await repliesIn(conversationId)).toHaveLength(1);
    const sends = await app.services.db.prisma.job.count({ where: { queue: "deliver.send", dedupeKey: replies[0]!.id } });
    expect(sends).toBe(1);
  }, 120_000);

  it("stores one reply when two runs resume the same message at once", async () => {
    const { job, conversationId } = await storedUnanswered(810_000_002);
    await Promise.all([processInbound(app.services, job), processInbound(app.services, job)]);
    expect(await repliesIn(conversationId)).toHaveLength(1);
    expect(await app.services.db.prisma.message.count({ where: { conversationId, role: "customer" } })).toBe(1);
  }, 120_000);
});
