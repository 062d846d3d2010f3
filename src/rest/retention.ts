import { z } from "zod";
import type { Services } from "../services.js";
import { runOperation } from "./execute.js";
import {
  type CustomerIdentityInput,
  EraseCustomerDocument,
  type LegalHoldFieldsFragment,
  ListLegalHoldsDocument,
  PlaceLegalHoldDocument,
  ReleaseLegalHoldDocument,
} from "./generated.js";
import { booleanVariable, objectBody, type RestRoute } from "./route.js";

const CustomerBody = {
  channel: z.string().optional().describe("with customer_id: the customer on one channel (widget, chatapp, sms, …)"),
  customer_id: z.string().optional().describe("the customer's id on that channel (a conversation's customer_id)"),
  phone: z.string().optional().describe("or: a phone number, matching the customer on every channel"),
};

const Customer = z.object({ channel: z.string().nullable(), customer_id: z.string().nullable(), phone: z.string().nullable() });

const HoldRecord = z.object({
  id: z.string(),
  conversation_id: z.string().nullable(),
  customer: Customer.nullable(),
  reason: z.string(),
  placed_by: z.string(),
  placed_by_label: z.string().nullable(),
  created_at: z.string(),
  active: z.boolean(),
  released_at: z.string().nullable(),
  released_by: z.string().nullable(),
  release_reason: z.string().nullable(),
});

const holdRecord = (h: LegalHoldFieldsFragment) => ({
  id: h.id,
  conversation_id: h.conversationId,
  customer: h.customer ? { channel: h.customer.channel, customer_id: h.customer.customerId, phone: h.customer.phone } : null,
  reason: h.reason,
  placed_by: h.placedBy,
  placed_by_label: h.placedByLabel,
  created_at: h.createdAt,
  active: h.active,
  released_at: h.releasedAt,
  released_by: h.releasedBy,
  release_reason: h.releaseReason,
});

const Counts = z.object({
  conversations: z.number().int(),
  messages: z.number().int(),
  feedback: z.number().int(),
  surveys: z.number().int(),
  escalations: z.number().int(),
  timeline_events: z.number().int(),
  webhook_events: z.number().int(),
  jobs: z.number().int(),
});

const ErasureRecord = z.object({
  subject: z.string().describe("the customer as the audit trail names them (a keyed digest, never the identity)"),
  erased: Counts,
  held_back: z.array(z.object({ conversation_id: z.string(), hold_id: z.string(), reason: z.string() })),
});

function customerOf(body: Record<string, unknown>): CustomerIdentityInput {
  return {
    channel: body.channel as string | undefined,
    customerId: (body.customer_id ?? body.customerId) as string | undefined,
    phone: body.phone as string | undefined,
  };
}

export function retentionRoutes(services: Services): RestRoute[] {
  return [
    {
      method: "post",
      path: "/api/erasures",
      tag: "Retention",
      summary:
        "Erases one customer's data on every channel (a data-subject request): {channel, customer_id} or {phone}; legal holds keep what they cover",
      body: z.object(CustomerBody),
      response: { status: 200, description: "Counts of what was erased, and what holds kept", schema: ErasureRecord },
      errors: [401, 403, 422, 429],
      async handle(req) {
        const { eraseCustomer: e } = await runOperation(services, req, EraseCustomerDocument, {
          customer: customerOf(objectBody(req.body)),
        });
        const { timelineEvents, webhookEvents, ...counts } = e.erased;
        return {
          subject: e.subject,
          erased: { ...counts, timeline_events: timelineEvents, webhook_events: webhookEvents },
          held_back: e.heldBack.map((h) => ({ conversation_id: h.conversationId, hold_id: h.holdId, reason: h.reason })),
        };
      },
    },
    {
      method: "get",
      path: "/api/legal-holds",
      tag: "Retention",
      summary: "The tenant's legal holds, newest first (?active=true: in force; false: released)",
      query: z.object({ active: z.boolean().optional() }),
      response: { status: 200, description: "The holds", schema: z.object({ holds: z.array(HoldRecord) }) },
      errors: [401, 403, 422, 429],
      async handle(req) {
        const { legalHolds } = await runOperation(services, req, ListLegalHoldsDocument, {
          active: booleanVariable(req.query.active),
        });
        return { holds: legalHolds.map(holdRecord) };
      },
    },
    {
      method: "post",
      path: "/api/legal-holds",
      tag: "Retention",
      summary:
        "Places a legal hold on a conversation ({conversation_id, reason}) or a customer ({channel, customer_id, reason} or {phone, reason})",
      body: z.object({ conversation_id: z.string().optional(), ...CustomerBody, reason: z.string() }),
      response: { status: 201, description: "The hold", schema: HoldRecord },
      errors: [401, 403, 404, 422, 429],
      async handle(req) {
        const body = objectBody(req.body);
        const conversationId = (body.conversation_id ?? body.conversationId) as string | undefined;
        const customer = customerOf(body);
        const { placeLegalHold } = await runOperation(services, req, PlaceLegalHoldDocument, {
          conversationId,
          customer: Object.values(customer).some((v) => v !== undefined) ? customer : undefined,
          reason: body.reason as string,
        });
        return holdRecord(placeLegalHold);
      },
    },
    {
      method: "post",
      path: "/api/legal-holds/:id/release",
      tag: "Retention",
      summary: "Releases a legal hold ({reason})",
      body: z.object({ reason: z.string() }),
      response: { status: 200, description: "The released hold", schema: HoldRecord },
      errors: [401, 403, 404, 422, 429],
      async handle(req) {
        const body = objectBody(req.body);
        const { releaseLegalHold } = await runOperation(services, req, ReleaseLegalHoldDocument, {
          id: String(req.params.id),
          reason: body.reason as string,
        });
        return holdRecord(releaseLegalHold);
      },
    },
  ];
}
