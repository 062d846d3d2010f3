import express, { type Request, type RequestHandler, type Response } from "express";
import { Prisma } from "../db/generated/prisma/client.js";
import { AppError } from "../errors.js";
import { applyDecision, type RateLimits } from "../http/rate-limit.js";
import type { Services } from "../services.js";
import { tenantRateLimit } from "../tenants/settings.js";
import type { ChannelEvent, ConfiguredChannel, WebhookEndpoint, WebhookRequest } from "./adapter.js";
import { claimantOf } from "./claims.js";
import { inboundQueue } from "./inbound-job.js";
import { singleQuery } from "./payload.js";
import { adapterFor } from "./registry.js";
import { safeEqual } from "./signatures.js";
import { markUnrouted } from "./source-limit.js";
import { channelByToken } from "./store.js";

export const webhookBodyLimit = 1024 * 1024;

/** Every provider's body kept as bytes, JSON too: signatures cover the exact body, and the channel parses it once. */
export const keepRawBody: RequestHandler = express.raw({ type: () => true, limit: webhookBodyLimit });

/** The request as the provider sent it. */
export function webhookRequest(services: Services, req: Request): WebhookRequest {
  const rawBody = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
  // Behind a proxy the provider signed the public address, not the one this process sees.
  const base = services.config.PUBLIC_BASE_URL?.replace(/\/$/, "") ?? `${req.protocol}://${req.get("host")}`;
  return {
    method: req.method,
    url: `${base}${req.originalUrl}`,
    query: singleQuery(req.query),
    headers: req.headers,
    rawBody,
  };
}

/** The id that makes a redelivery recognisable: unique per channel, as providers number per account or bot. */
export function providerMessageKey(channel: ConfiguredChannel, event: Pick<ChannelEvent, "providerMessageId">): string {
  return `${channel.type}:${channel.routingKey}:${event.providerMessageId}`;
}

async function channelOfToken(services: Services, endpoint: WebhookEndpoint, req: WebhookRequest) {
  const token = endpoint.tokenOf?.(req);
  if (!token) throw new AppError("AUTH_INVALID", "Missing webhook token");
  const channel = await channelByToken(services, endpoint.types, token);
  const expected = channel ? adapterFor(channel.type).webhookTokenOf?.(channel.credentials) : null;
  if (!channel || !expected || !safeEqual(token, expected)) throw new AppError("AUTH_INVALID", "Unknown webhook token");
  return channel;
}

/**
 * Every event with the tenant channel it belongs to: the channel claiming the event's account whose
 * credentials verify the request (claims.ts). Events for accounts no channel claims are dropped (and
 * logged) rather than refused, so that a provider does not retry them forever; a request that no claim
 * of an account it names verifies is refused whole.
 */
async function routeEvents(
  services: Services,
  endpoint: WebhookEndpoint,
  req: WebhookRequest,
  events: ChannelEvent[],
  tokenChannel: ConfiguredChannel | null,
) {
  const routed: Array<{ event: ChannelEvent; channel: ConfiguredChannel }> = [];
  const channels = new Map<string, ConfiguredChannel | null>();
  for (const event of events) {
    let channel = tokenChannel;
    if (!channel) {
      const key = `${event.type}:${event.routingKey}`;
      if (!channels.has(key)) {
        const found = event.routingKey
          ? await claimantOf(services, event.type, event.routingKey, (c) => endpoint.verify?.(req, c) ?? false)
          : null;
        if (found === "unverified") throw new AppError("AUTH_INVALID", "Invalid webhook signature");
        channels.set(key, found);
      }
      channel = channels.get(key) ?? null;
    }
    if (!channel) {
      services.logger.info(
        { type: event.type, routingKey: event.routingKey },
        "webhook event for no configured channel: ignored",
      );
      continue;
    }
    if (channel.type !== event.type) continue;
    routed.push({ event, channel });
  }
  return routed;
}

/** Webhooks are counted per tenant channel (DESIGN §3), with the tenant's own limit. */
async function countPerChannel(services: Services, limits: RateLimits, res: Response, channels: ConfiguredChannel[]) {
  const seen = new Set<string>();
  for (const channel of channels) {
    if (seen.has(channel.id)) continue;
    seen.add(channel.id);
    applyDecision(res, await limits.consume(`channel:${channel.id}`, await tenantRateLimit(services, channel.tenantId)));
  }
}

// Providers' ids are tens of characters. The database indexes them (a message's provider id, a job's de-duplication
// key, a conversation's customer), and an index entry holds at most about 2,700 bytes.
const maxIdLength = 256;

/**
 * The events whose ids the database can index. An id thousands of characters long is no provider's: its event is
 * dropped, as one for an account no tenant claims is, and the rest of the delivery goes on.
 */
function storableEvents(services: Services, events: ChannelEvent[]): ChannelEvent[] {
  return events.filter((event) => {
    const ids = [event.routingKey, event.providerMessageId, event.customer.id, event.customer.phone];
    const storable = ids.every((id) => (id ?? "").length <= maxIdLength);
    if (!storable) services.logger.warn({ channel: event.type, maxIdLength }, "webhook event dropped: an id is too long");
    return storable;
  });
}

/**
 * The webhook's events with the tenant channels they belong to: authenticated, routed, and counted
 * against each channel's rate limit. What synchronous channels (USSD, voice) answer within the request.
 */
export async function verifiedEvents(
  services: Services,
  limits: RateLimits,
  endpoint: WebhookEndpoint,
  req: WebhookRequest,
  res: Response,
): Promise<Array<{ event: ChannelEvent; channel: ConfiguredChannel }>> {
  // A token is checked before the body is read: without it the request is nobody's.
  const tokenChannel = endpoint.tokenOf ? await channelOfToken(services, endpoint, req) : null;
  const events = storableEvents(services, endpoint.parse(req));
  const routed = await routeEvents(services, endpoint, req, events, tokenChannel);
  if (events.length && !routed.length) markUnrouted(res);
  if (routed.length) {
    await countPerChannel(
      services,
      limits,
      res,
      routed.map((r) => r.channel),
    );
  }
  return routed;
}

/**
 * Accepts the customer messages of a webhook: stored as inbound jobs in one transaction (nothing is
 * lost once the provider has its 200), and processed by a worker; a redelivered message is dropped here
 * when it was already handled, and in the pipeline when it races its first delivery.
 */
export async function acceptWebhook(
  services: Services,
  limits: RateLimits,
  endpoint: WebhookEndpoint,
  req: WebhookRequest,
  res: Response,
): Promise<number> {
  const routed = await verifiedEvents(services, limits, endpoint, req, res);
  // A redelivery of a message already handled is done: no job for it. One that races its first delivery is
  // dropped by the job's de-duplication key, or by the pipeline.
  const enqueue = (tx: Parameters<Services["jobs"]["enqueue"]>[1], { event, channel }: (typeof routed)[number]) => {
    const providerMessageId = providerMessageKey(channel, event);
    return services.jobs.enqueueUnless(
      {
        queue: inboundQueue,
        tenantId: channel.tenantId,
        payload: { channelId: channel.id, providerMessageId, event: { ...event } },
        dedupeKey: providerMessageId,
      },
      Prisma.sql`EXISTS (SELECT 1 FROM messages WHERE tenant_id = ${channel.tenantId} AND provider_message_id = ${providerMessageId})`,
      tx,
    );
  };
  // The usual webhook carries one message: its INSERT needs no transaction, and enqueue announces it once stored.
  if (!routed.length) return 0;
  if (routed.length === 1) return (await enqueue(undefined, routed[0]!)) ? 1 : 0;
  const enqueued = await services.db.prisma.$transaction(async (tx) => {
    let count = 0;
    for (const item of routed) if (await enqueue(tx, item)) count++;
    return count;
  });
  services.jobs.announce(inboundQueue);
  return enqueued;
}

/** Sends the provider's acknowledgement. */
export function acknowledge(res: Response, endpoint: WebhookEndpoint, req: WebhookRequest): void {
  const ack = (typeof endpoint.ack === "function" ? endpoint.ack(req) : endpoint.ack) ?? {
    contentType: "application/json",
    body: '{"ok":true}',
  };
  res.status(200).type(ack.contentType).send(ack.body);
}
