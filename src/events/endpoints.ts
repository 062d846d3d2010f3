import { z } from "zod";
import { newId } from "../db/ids.js";
import type { TenantDb } from "../db/tenant-scope.js";
import { AppError, notFound } from "../errors.js";
import { parseInput } from "../graphql/validate.js";
import { EgressRefusedError } from "../http/egress.js";
import type { Services } from "../services.js";
import { deliveryQueue } from "./outbox.js";
import { generateSigningSecret } from "./signature.js";
import { eventTypes } from "./types.js";

const maxEndpoints = 20;

const endpointInput = z.object({
  url: z
    .string()
    .trim()
    // Zod runs the refinements below even after a failed check unless it aborts: they may only see a parsed URL.
    .max(2_000, { abort: true })
    .url({ abort: true })
    .refine((u) => /^https?:\/\//i.test(u), "must be an http or https URL")
    .refine((u) => !new URL(u).username && !new URL(u).password, "must not carry a user name or password"),
  eventTypes: z
    .array(z.enum(eventTypes as [string, ...string[]]))
    .min(1, "name at least one event type")
    .max(eventTypes.length)
    .transform((types) => [...new Set(types)].sort()),
  description: z.string().trim().max(500).nullish(),
  enabled: z.boolean(),
});

export type EndpointInput = z.input<typeof endpointInput>;

/** The same rules as the crawler's: an address the service may not reach is refused when saved, not only when sent to. */
function checkReachable(services: Services, url: string): void {
  try {
    services.egress.check(new URL(url));
  } catch (err) {
    if (err instanceof EgressRefusedError) throw new AppError("VALIDATION", err.message, [{ path: "url", message: "refused" }]);
    throw err;
  }
}

export async function createEndpoint(services: Services, db: TenantDb, tenantId: string, input: EndpointInput) {
  const fields = parseInput(endpointInput.partial({ enabled: true }), input);
  checkReachable(services, fields.url);
  if ((await db.webhookEndpoint.count()) >= maxEndpoints) {
    throw new AppError("VALIDATION", `A tenant has at most ${maxEndpoints} endpoints`);
  }
  const secret = generateSigningSecret();
  const id = newId("whe");
  await db.webhookEndpoint.create({
    data: {
      id,
      tenantId,
      url: fields.url,
      eventTypes: fields.eventTypes,
      description: fields.description ?? null,
      enabled: fields.enabled ?? true,
      secret: services.secrets.seal(secret),
    },
  });
  services.events.endpointsChanged(tenantId);
  return { id, secret };
}

/** Changes an endpoint; enabling one the service disabled clears why it was. */
export async function updateEndpoint(
  services: Services,
  db: TenantDb,
  tenantId: string,
  id: string,
  input: Partial<EndpointInput>,
) {
  const fields = parseInput(endpointInput.partial(), input);
  if (fields.url) checkReachable(services, fields.url);
  const { count } = await db.webhookEndpoint.updateMany({
    where: { id },
    data: {
      ...fields,
      ...(fields.enabled ? { disabledAt: null, disabledReason: null } : {}),
    },
  });
  if (!count) throw notFound("Endpoint");
  services.events.endpointsChanged(tenantId);
}

/** A new signing secret, shown once; deliveries from now on are signed with it. */
export async function rotateSecret(services: Services, db: TenantDb, id: string) {
  const secret = generateSigningSecret();
  const { count } = await db.webhookEndpoint.updateMany({ where: { id }, data: { secret: services.secrets.seal(secret) } });
  if (!count) throw notFound("Endpoint");
  return { id, secret };
}

export async function deleteEndpoint(services: Services, db: TenantDb, tenantId: string, id: string) {
  const { count } = await db.webhookEndpoint.deleteMany({ where: { id } });
  if (!count) throw notFound("Endpoint");
  services.events.endpointsChanged(tenantId);
}

/** Sends an event to an endpoint again, with a fresh set of attempts; returns the delivery job's id. */
export async function redeliver(services: Services, db: TenantDb, endpointId: string, eventId: string) {
  const [endpoint, event] = await Promise.all([
    db.webhookEndpoint.findUnique({ where: { id: endpointId }, select: { id: true, tenantId: true, enabled: true } }),
    db.webhookEvent.findUnique({ where: { id: eventId }, select: { id: true } }),
  ]);
  if (!endpoint) throw notFound("Endpoint");
  if (!event) throw notFound("Event");
  if (!endpoint.enabled)
    throw new AppError("VALIDATION", "The endpoint is disabled: enable it first", [{ path: "endpointId", message: "disabled" }]);
  return services.jobs.enqueue({
    queue: deliveryQueue,
    tenantId: endpoint.tenantId,
    payload: { eventId, endpointId },
    maxAttempts: services.events.maxAttempts,
  });
}
