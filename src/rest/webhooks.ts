import { z } from "zod";
import { eventTypes } from "../events/types.js";
import type { Services } from "../services.js";
import { runOperation } from "./execute.js";
import {
  CreateWebhookEndpointDocument,
  DeleteWebhookEndpointDocument,
  GetWebhookEndpointDocument,
  ListWebhookDeliveriesDocument,
  ListWebhookEndpointsDocument,
  ListWebhookEventsDocument,
  RedeliverWebhookEventDocument,
  RotateWebhookSecretDocument,
  UpdateWebhookEndpointDocument,
  type WebhookEndpointFieldsFragment,
} from "./generated.js";
import { objectBody, pagingQuery, queryVariable, Reply, type RestRoute, textVariable } from "./route.js";

const EventType = z.enum(eventTypes as [string, ...string[]]);

const EndpointRecord = z.object({
  id: z.string(),
  url: z.string(),
  description: z.string().nullable(),
  event_types: z.array(EventType),
  enabled: z.boolean(),
  disabled_at: z.string().nullable(),
  disabled_reason: z.string().nullable().describe("why the service disabled it: its deliveries failed for a day"),
  created_at: z.string(),
  updated_at: z.string(),
});

const record = (e: WebhookEndpointFieldsFragment) => ({
  id: e.id,
  url: e.url,
  description: e.description,
  event_types: e.eventTypes,
  enabled: e.enabled,
  disabled_at: e.disabledAt,
  disabled_reason: e.disabledReason,
  created_at: e.createdAt,
  updated_at: e.updatedAt,
});

const WithSecret = EndpointRecord.extend({
  secret: z.string().describe("the signing secret (whsec_…), shown this once"),
});

const EndpointBody = z.object({
  url: z.string().describe("http(s); internal addresses are refused unless the operator opened them"),
  event_types: z.array(EventType),
  description: z.string().optional(),
  enabled: z.boolean().optional(),
});

function endpointVariables(body: Record<string, unknown>) {
  return {
    url: body.url as string | undefined,
    eventTypes: (body.event_types ?? body.eventTypes) as string[] | undefined,
    description: body.description as string | undefined,
    enabled: body.enabled as boolean | undefined,
  };
}

export function webhookRoutes(services: Services): RestRoute[] {
  return [
    {
      method: "get",
      path: "/api/webhooks",
      tag: "Event notifications",
      summary: "The tenant's event notification endpoints (owners and admins)",
      response: { status: 200, description: "Endpoints", schema: z.object({ endpoints: z.array(EndpointRecord) }) },
      errors: [401, 403, 429],
      async handle(req) {
        const { webhookEndpoints } = await runOperation(services, req, ListWebhookEndpointsDocument, {});
        return { endpoints: webhookEndpoints.map(record) };
      },
    },
    {
      method: "post",
      path: "/api/webhooks",
      tag: "Event notifications",
      summary: "Register an endpoint; the answer carries its signing secret, shown once",
      body: EndpointBody,
      response: { status: 201, description: "Created", schema: WithSecret },
      errors: [401, 403, 422, 429],
      async handle(req) {
        const { createWebhookEndpoint: created } = await runOperation(
          services,
          req,
          CreateWebhookEndpointDocument,
          endpointVariables(objectBody(req.body)),
        );
        return { ...record(created.endpoint), secret: created.secret };
      },
    },
    {
      method: "get",
      path: "/api/webhooks/:id",
      tag: "Event notifications",
      summary: "One endpoint",
      response: { status: 200, description: "The endpoint", schema: EndpointRecord },
      errors: [401, 403, 404, 429],
      async handle(req) {
        const { webhookEndpoint } = await runOperation(services, req, GetWebhookEndpointDocument, { id: String(req.params.id) });
        return record(webhookEndpoint);
      },
    },
    {
      method: "put",
      path: "/api/webhooks/:id",
      tag: "Event notifications",
      summary: "Change an endpoint; `enabled: true` brings back one the service disabled",
      body: EndpointBody.partial(),
      response: { status: 200, description: "Updated", schema: EndpointRecord },
      errors: [401, 403, 404, 422, 429],
      async handle(req) {
        const { updateWebhookEndpoint } = await runOperation(services, req, UpdateWebhookEndpointDocument, {
          id: String(req.params.id),
          ...endpointVariables(objectBody(req.body)),
        });
        return record(updateWebhookEndpoint);
      },
    },
    {
      method: "delete",
      path: "/api/webhooks/:id",
      tag: "Event notifications",
      summary: "Remove an endpoint and its delivery log",
      response: { status: 200, description: "Deleted", schema: z.object({ deleted: z.string() }) },
      errors: [401, 403, 404, 429],
      async handle(req) {
        const { deleteWebhookEndpoint } = await runOperation(services, req, DeleteWebhookEndpointDocument, {
          id: String(req.params.id),
        });
        return deleteWebhookEndpoint;
      },
    },
    {
      method: "post",
      path: "/api/webhooks/:id/rotate-secret",
      tag: "Event notifications",
      summary: "A new signing secret, shown once; deliveries from now on are signed with it",
      response: { status: 200, description: "The endpoint with its new secret", schema: WithSecret },
      errors: [401, 403, 404, 429],
      async handle(req) {
        const { rotateWebhookSecret: rotated } = await runOperation(services, req, RotateWebhookSecretDocument, {
          id: String(req.params.id),
        });
        return { ...record(rotated.endpoint), secret: rotated.secret };
      },
    },
    {
      method: "get",
      path: "/api/webhooks/:id/deliveries",
      tag: "Event notifications",
      summary: "The endpoint's delivery log, newest first: one entry per attempt",
      query: z.object({ ...pagingQuery, event_id: z.string().optional() }),
      response: {
        status: 200,
        description: "A page of attempts",
        schema: z.object({
          deliveries: z.array(
            z.object({
              id: z.string(),
              event_id: z.string(),
              event_type: EventType,
              attempt: z.number().int(),
              status: z.enum(["succeeded", "failed"]),
              http_status: z.number().int().nullable(),
              latency_ms: z.number().int(),
              response_excerpt: z.string().nullable(),
              error: z.string().nullable(),
              next_attempt_at: z.string().nullable(),
              created_at: z.string(),
            }),
          ),
          total: z.number(),
          page: z.number(),
          limit: z.number(),
        }),
      },
      errors: [401, 403, 404, 422, 429],
      async handle(req) {
        const { webhookDeliveries: page } = await runOperation(services, req, ListWebhookDeliveriesDocument, {
          endpointId: String(req.params.id),
          eventId: textVariable(req.query.event_id),
          page: queryVariable(req.query.page) as number,
          limit: queryVariable(req.query.limit) as number,
        });
        return {
          deliveries: page.items.map((d) => ({
            id: d.id,
            event_id: d.eventId,
            event_type: d.eventType,
            attempt: d.attempt,
            status: d.status,
            http_status: d.httpStatus,
            latency_ms: d.latencyMs,
            response_excerpt: d.responseExcerpt,
            error: d.error,
            next_attempt_at: d.nextAttemptAt,
            created_at: d.createdAt,
          })),
          total: page.total,
          page: page.page,
          limit: page.limit,
        };
      },
    },
    {
      method: "post",
      path: "/api/webhooks/:id/redeliver",
      tag: "Event notifications",
      summary: "Send an event to the endpoint again `{event_id}`, with a fresh set of attempts and the same webhook-id",
      body: z.object({ event_id: z.string() }),
      response: { status: 202, description: "Queued", schema: z.object({ job_id: z.string() }) },
      errors: [401, 403, 404, 422, 429],
      async handle(req) {
        const body = objectBody(req.body);
        const { redeliverWebhookEvent } = await runOperation(services, req, RedeliverWebhookEventDocument, {
          endpointId: String(req.params.id),
          eventId: typeof body.event_id === "string" ? body.event_id : "",
        });
        return new Reply(202, { job_id: redeliverWebhookEvent.jobId });
      },
    },
    {
      method: "get",
      path: "/api/webhook-events",
      tag: "Event notifications",
      summary: "Events recorded for the tenant's endpoints, newest first; `payload` is the body each endpoint is sent",
      query: z.object({ ...pagingQuery, type: EventType.optional() }),
      response: {
        status: 200,
        description: "A page of events",
        schema: z.object({
          events: z.array(z.object({ id: z.string(), type: EventType, payload: z.unknown(), created_at: z.string() })),
          total: z.number(),
          page: z.number(),
          limit: z.number(),
        }),
      },
      errors: [401, 403, 422, 429],
      async handle(req) {
        const { webhookEvents: page } = await runOperation(services, req, ListWebhookEventsDocument, {
          type: textVariable(req.query.type),
          page: queryVariable(req.query.page) as number,
          limit: queryVariable(req.query.limit) as number,
        });
        return {
          events: page.items.map((e) => ({ id: e.id, type: e.type, payload: e.payload, created_at: e.createdAt })),
          total: page.total,
          page: page.page,
          limit: page.limit,
        };
      },
    },
  ];
}
