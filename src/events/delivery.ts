import type { Response } from "undici";
import { appendAudit } from "../audit/record.js";
import type { Prisma } from "../db/generated/prisma/client.js";
import { newId } from "../db/ids.js";
import { EgressRefusedError } from "../http/egress.js";
import { type JobRecord, RetryLater } from "../jobs/queue.js";
import type { Services } from "../services.js";
import { signWebhook } from "./signature.js";

export interface DeliveryPayload {
  eventId: string;
  endpointId: string;
}

/** How much of a receiver's answer the delivery log keeps. */
const excerptBytes = 1_024;

interface Attempt {
  ok: boolean;
  httpStatus: number | null;
  excerpt: string | null;
  error: string | null;
  /** Retrying cannot help: the address is one the service may not reach. */
  final: boolean;
}

/** The start of a response body as text (invalid UTF-8 replaced, NULs dropped: PostgreSQL text cannot hold them). */
async function excerptOf(body: Response["body"]): Promise<string | null> {
  if (!body) return null;
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < excerptBytes) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.length;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  const text = new TextDecoder().decode(Buffer.concat(chunks).subarray(0, excerptBytes));
  return text.replaceAll("\u0000", "") || null;
}

/** One signed POST of the event to the endpoint (Standard Webhooks headers); never throws. */
async function post(services: Services, url: string, secret: string, eventId: string, body: string): Promise<Attempt> {
  const timestamp = Math.floor(Date.now() / 1000);
  try {
    const res = await services.egress.fetch(new URL(url), {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "user-agent": "Parley-Webhooks/1",
        "webhook-id": eventId,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": signWebhook(secret, eventId, timestamp, body),
      },
      body,
      signal: AbortSignal.timeout(services.config.WEBHOOK_TIMEOUT_MS),
    });
    const excerpt = await excerptOf(res.body).catch(() => null);
    const ok = res.status >= 200 && res.status < 300;
    return { ok, httpStatus: res.status, excerpt, error: ok ? null : `The endpoint answered HTTP ${res.status}`, final: false };
  } catch (err) {
    const error =
      err instanceof Error && err.name === "TimeoutError"
        ? "The endpoint did not answer in time"
        : String((err as Error).message);
    return { ok: false, httpStatus: null, excerpt: null, error, final: err instanceof EgressRefusedError };
  }
}

/**
 * Disables an endpoint that has received nothing since `since` (the failed event was made then: a day of retries
 * ago), with the reason, an event to the tenant's other endpoints, and an audit record of the service's own.
 */
async function disableIfFailing(
  services: Services,
  tx: Prisma.TransactionClient,
  endpoint: { id: string; tenantId: string; url: string },
  since: Date,
  error: string,
): Promise<boolean> {
  const succeeded = await tx.webhookDelivery.findFirst({
    where: { endpointId: endpoint.id, status: "succeeded", createdAt: { gte: since } },
    select: { id: true },
  });
  if (succeeded) return false;
  const reason = `Disabled by the service: deliveries failed since ${since.toISOString()} (last: ${error})`;
  const disabled = await tx.webhookEndpoint.updateMany({
    where: { id: endpoint.id, enabled: true },
    data: { enabled: false, disabledAt: new Date(), disabledReason: reason },
  });
  if (!disabled.count) return false;
  await services.events.record(tx, endpoint.tenantId, "webhook.endpoint_disabled", {
    endpoint: { id: endpoint.id, url: endpoint.url },
    reason,
  });
  await appendAudit(tx, (s) => services.secrets.fingerprint(s), {
    tenantId: endpoint.tenantId,
    actor: { kind: "system" },
    action: "webhookEndpoint.disable",
    target: { type: "webhookEndpoint", id: endpoint.id },
    details: { reason },
  });
  return true;
}

/**
 * The delivery job: the event to one endpoint, logged with its outcome, latency and the start of the answer. A
 * failure is retried on WEBHOOK_RETRY_SCHEDULE_S; once they are spent (or at once for an address the service may
 * not reach) the delivery has failed, and the endpoint is disabled if nothing reached it meanwhile.
 */
export async function deliverEvent(services: Services, job: JobRecord): Promise<void> {
  const { eventId, endpointId } = job.payload as DeliveryPayload;
  const prisma = services.db.prisma;
  const [endpoint, event] = await Promise.all([
    prisma.webhookEndpoint.findUnique({ where: { id: endpointId } }),
    prisma.webhookEvent.findUnique({ where: { id: eventId } }),
  ]);
  // Removed, or disabled since (it is sent nothing until it is enabled again: then a redelivery sends this one).
  if (!endpoint?.enabled || !event) return;
  const started = performance.now();
  const attempt = await post(
    services,
    endpoint.url,
    services.secrets.open(endpoint.secret),
    event.id,
    JSON.stringify(event.payload),
  );
  const latencyMs = Math.round(performance.now() - started);
  const waitS = attempt.ok || attempt.final ? undefined : services.config.WEBHOOK_RETRY_SCHEDULE_S[job.attempts - 1];
  const nextAttemptAt = waitS === undefined ? null : new Date(Date.now() + waitS * 1000);
  const disabled = await prisma.$transaction(async (tx) => {
    await tx.webhookDelivery.create({
      data: {
        id: newId("whd"),
        tenantId: endpoint.tenantId,
        endpointId,
        eventId,
        eventType: event.type,
        attempt: job.attempts,
        status: attempt.ok ? "succeeded" : "failed",
        httpStatus: attempt.httpStatus,
        latencyMs,
        responseExcerpt: attempt.excerpt,
        error: attempt.error,
        nextAttemptAt,
      },
    });
    return attempt.ok || nextAttemptAt ? false : disableIfFailing(services, tx, endpoint, event.createdAt, attempt.error ?? "");
  });
  services.metrics.webhookDeliveries.inc({ outcome: attempt.ok ? "succeeded" : nextAttemptAt ? "retrying" : "failed" });
  if (disabled) {
    services.events.endpointsChanged(endpoint.tenantId);
    services.logger.warn(
      { endpointId, tenantId: endpoint.tenantId },
      "event notification endpoint disabled: its deliveries failed",
    );
  }
  if (nextAttemptAt) throw new RetryLater(attempt.error ?? "delivery failed", waitS! * 1000);
}
