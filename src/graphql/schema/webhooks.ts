import { z } from "zod";
import type { Prisma } from "../../db/generated/prisma/client.js";
import { notFound } from "../../errors.js";
import { createEndpoint, deleteEndpoint, redeliver, rotateSecret, updateEndpoint } from "../../events/endpoints.js";
import { eventCatalogue, eventTypes } from "../../events/types.js";
import { builder } from "../builder.js";
import { type Page, pageArgs, pageOf, pagingInput, skipTake } from "../paging.js";
import { parseInput } from "../validate.js";

export const WebhookEndpoint = builder.prismaObject("WebhookEndpoint", {
  description: "An address of the tenant's that is sent the events it subscribes to, signed (Standard Webhooks)",
  fields: (t) => ({
    id: t.exposeID("id"),
    url: t.exposeString("url"),
    description: t.exposeString("description", { nullable: true }),
    eventTypes: t.exposeStringList("eventTypes"),
    enabled: t.exposeBoolean("enabled"),
    disabledAt: t.expose("disabledAt", { type: "DateTime", nullable: true }),
    disabledReason: t.exposeString("disabledReason", {
      nullable: true,
      description: "Why the service disabled it (its deliveries failed for a day); cleared when it is enabled again",
    }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
  }),
});

export const WebhookDelivery = builder.prismaObject("WebhookDelivery", {
  description: "One attempt at sending an event to an endpoint",
  fields: (t) => ({
    id: t.exposeID("id"),
    endpointId: t.exposeID("endpointId"),
    eventId: t.exposeID("eventId"),
    eventType: t.exposeString("eventType"),
    attempt: t.exposeInt("attempt", { description: "1 for the first attempt of a delivery" }),
    status: t.exposeString("status", { description: "succeeded (a 2xx answer) or failed" }),
    httpStatus: t.exposeInt("httpStatus", { nullable: true }),
    latencyMs: t.exposeInt("latencyMs"),
    responseExcerpt: t.exposeString("responseExcerpt", { nullable: true, description: "The first KiB of the answer" }),
    error: t.exposeString("error", { nullable: true }),
    nextAttemptAt: t.expose("nextAttemptAt", { type: "DateTime", nullable: true, description: "When it is retried, if it is" }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
  }),
});

export const WebhookEvent = builder.prismaObject("WebhookEvent", {
  description: "An event recorded for the tenant's endpoints: `payload` is the body they are sent",
  fields: (t) => ({
    id: t.exposeID("id", { description: "The webhook-id header: the same on every attempt, for idempotency" }),
    type: t.exposeString("type"),
    payload: t.expose("payload", { type: "JSON" }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
  }),
});

const EventTypeInfo = builder.objectRef<{ type: string; description: string }>("WebhookEventType").implement({
  fields: (t) => ({ type: t.exposeString("type"), description: t.exposeString("description") }),
});

builder.queryField("webhookEventTypes", (t) =>
  t.field({
    type: [EventTypeInfo],
    description: "The event types an endpoint can subscribe to",
    authScopes: { permission: "configure" },
    resolve: () => Object.entries(eventCatalogue).map(([type, description]) => ({ type, description })),
  }),
);

builder.queryField("webhookEndpoints", (t) =>
  t.prismaField({
    type: ["WebhookEndpoint"],
    description: "The tenant's event notification endpoints (owners and admins)",
    authScopes: { permission: "configure" },
    resolve: (query, _root, _args, ctx) => ctx.db.webhookEndpoint.findMany({ ...query, orderBy: { createdAt: "asc" } }),
  }),
);

builder.queryField("webhookEndpoint", (t) =>
  t.prismaField({
    type: "WebhookEndpoint",
    authScopes: { permission: "configure" },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const found = await ctx.db.webhookEndpoint.findUnique({ ...query, where: { id: String(args.id) } });
      if (!found) throw notFound("Endpoint");
      return found;
    },
  }),
);

type DeliveryRow = Prisma.WebhookDeliveryGetPayload<object>;
const DeliveryPage = pageOf<DeliveryRow>("WebhookDeliveryPage", WebhookDelivery);

builder.queryField("webhookDeliveries", (t) =>
  t.field({
    type: DeliveryPage,
    description: "An endpoint's delivery log, newest first",
    authScopes: { permission: "configure" },
    args: { ...pageArgs, endpointId: t.arg.id({ required: true }), eventId: t.arg.id({ required: false }) },
    resolve: async (_root, args, ctx): Promise<Page<DeliveryRow>> => {
      const input = parseInput(z.object(pagingInput), args);
      const endpointId = String(args.endpointId);
      if (!(await ctx.db.webhookEndpoint.findUnique({ where: { id: endpointId }, select: { id: true } })))
        throw notFound("Endpoint");
      const where = { endpointId, ...(args.eventId ? { eventId: String(args.eventId) } : {}) };
      const [items, total] = await Promise.all([
        ctx.db.webhookDelivery.findMany({
          where,
          orderBy: [{ createdAt: "desc" }, { id: "desc" }],
          ...skipTake(input.page, input.limit),
        }),
        ctx.db.webhookDelivery.count({ where }),
      ]);
      return { items, total, page: input.page, limit: input.limit };
    },
  }),
);

type EventRow = Prisma.WebhookEventGetPayload<object>;
const EventPage = pageOf<EventRow>("WebhookEventPage", WebhookEvent);

builder.queryField("webhookEvents", (t) =>
  t.field({
    type: EventPage,
    description: "Events recorded for the tenant's endpoints, newest first (the notices of disabled endpoints among them)",
    authScopes: { permission: "configure" },
    args: { ...pageArgs, type: t.arg.string({ required: false }) },
    resolve: async (_root, args, ctx): Promise<Page<EventRow>> => {
      const input = parseInput(z.object({ ...pagingInput, type: z.enum(eventTypes as [string, ...string[]]).optional() }), args);
      const where = input.type ? { type: input.type } : {};
      const [items, total] = await Promise.all([
        ctx.db.webhookEvent.findMany({
          where,
          orderBy: [{ createdAt: "desc" }, { id: "desc" }],
          ...skipTake(input.page, input.limit),
        }),
        ctx.db.webhookEvent.count({ where }),
      ]);
      return { items, total, page: input.page, limit: input.limit };
    },
  }),
);

const endpointArgs = builder.args((t) => ({
  url: t.string({ required: false, description: "http(s); addresses of internal networks are refused" }),
  eventTypes: t.stringList({ required: false, description: "Types to send (webhookEventTypes)" }),
  description: t.string({ required: false }),
  enabled: t.boolean({ required: false }),
}));

const EndpointWithSecret = builder.objectRef<{ id: string; secret: string }>("WebhookEndpointWithSecret").implement({
  fields: (t) => ({
    secret: t.exposeString("secret", { description: "The signing secret (whsec_…). Shown this once: store it now." }),
    endpoint: t.prismaField({
      type: "WebhookEndpoint",
      resolve: (query, created, _args, ctx) => ctx.db.webhookEndpoint.findUniqueOrThrow({ ...query, where: { id: created.id } }),
    }),
  }),
});

builder.mutationField("createWebhookEndpoint", (t) =>
  t.field({
    type: EndpointWithSecret,
    description: "Registers an endpoint; its signing secret is shown once",
    authScopes: { permission: "configure" },
    audit: { action: "webhookEndpoint.create", target: "webhookEndpoint", id: (_args, _ctx, created) => created?.id },
    args: endpointArgs,
    resolve: (_root, args, ctx) => createEndpoint(ctx.services, ctx.db, ctx.tenantId, args as never),
  }),
);

builder.mutationField("updateWebhookEndpoint", (t) =>
  t.prismaField({
    type: "WebhookEndpoint",
    description: "Changes an endpoint; enabled: true brings back one the service disabled (redeliver what it missed)",
    authScopes: { permission: "configure" },
    audit: { action: "webhookEndpoint.update", target: "webhookEndpoint", id: (args) => String(args.id) },
    args: { id: t.arg.id({ required: true }), ...endpointArgs },
    resolve: async (query, _root, { id, ...args }, ctx) => {
      await updateEndpoint(ctx.services, ctx.db, ctx.tenantId, String(id), args as never);
      return ctx.db.webhookEndpoint.findUniqueOrThrow({ ...query, where: { id: String(id) } });
    },
  }),
);

builder.mutationField("rotateWebhookSecret", (t) =>
  t.field({
    type: EndpointWithSecret,
    description: "A new signing secret for the endpoint, shown once; the old one signs nothing from now on",
    authScopes: { permission: "configure" },
    audit: { action: "webhookEndpoint.rotateSecret", target: "webhookEndpoint", id: (args) => String(args.id) },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => rotateSecret(ctx.services, ctx.db, String(args.id)),
  }),
);

const DeletedEndpoint = builder.objectRef<{ deleted: string }>("DeletedWebhookEndpoint").implement({
  fields: (t) => ({ deleted: t.exposeID("deleted") }),
});

builder.mutationField("deleteWebhookEndpoint", (t) =>
  t.field({
    type: DeletedEndpoint,
    description: "Removes an endpoint and its delivery log",
    authScopes: { permission: "configure" },
    audit: { action: "webhookEndpoint.delete", target: "webhookEndpoint", id: (args) => String(args.id) },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      await deleteEndpoint(ctx.services, ctx.db, ctx.tenantId, String(args.id));
      return { deleted: String(args.id) };
    },
  }),
);

const Redelivery = builder.objectRef<{ jobId: string }>("WebhookRedelivery").implement({
  fields: (t) => ({ jobId: t.exposeID("jobId", { description: "The delivery job (see jobs)" }) }),
});

builder.mutationField("redeliverWebhookEvent", (t) =>
  t.field({
    type: Redelivery,
    description: "Sends an event to an endpoint again, with a fresh set of attempts (the same webhook-id)",
    authScopes: { permission: "configure" },
    audit: {
      action: "webhookEndpoint.redeliver",
      target: "webhookEndpoint",
      id: (args) => String(args.endpointId),
      details: (args) => ({ eventId: String(args.eventId) }),
    },
    args: { endpointId: t.arg.id({ required: true }), eventId: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => ({
      jobId: await redeliver(ctx.services, ctx.db, String(args.endpointId), String(args.eventId)),
    }),
  }),
);
