import { z } from "zod";
import type { Services } from "../services.js";
import { runOperation } from "./execute.js";
import {
  CreateEscalationDocument,
  type EscalationFieldsFragment,
  ListEscalationsDocument,
  UpdateEscalationDocument,
} from "./generated.js";
import { bodyId, booleanVariable, objectBody, queryVariable, type RestRoute, textVariable } from "./route.js";

const reasons = z.enum(["customer_request", "urgent_intent", "low_confidence", "engine_failure", "manual"]);
const priorities = z.enum(["low", "normal", "high", "urgent"]);
const statuses = z.enum(["open", "assigned", "resolved"]);
const Ref = z.object({ id: z.string(), name: z.string() }).nullable();

const EscalationRecord = z.object({
  id: z.string(),
  conversation_id: z.string(),
  reason: reasons,
  priority: priorities,
  status: statuses,
  team: Ref,
  assignee: Ref,
  note: z.string().nullable(),
  created_by: z.string().describe("ai (the router), or the user or API key id that escalated"),
  created_at: z.string(),
  updated_at: z.string(),
  assigned_at: z.string().nullable(),
  first_response_at: z.string().nullable(),
  resolved_at: z.string().nullable(),
  out_of_hours: z.boolean().describe("asked for outside business hours: queued, the AI answering until a person takes it"),
  expected_at: z.string().nullable().describe("for a request out of hours: when the team was next back"),
});

const record = (e: EscalationFieldsFragment) => ({
  id: e.id,
  conversation_id: e.conversationId,
  reason: e.reason,
  priority: e.priority,
  status: e.status,
  team: e.team,
  assignee: e.assignee,
  note: e.note,
  created_by: e.createdBy,
  created_at: e.createdAt,
  updated_at: e.updatedAt,
  assigned_at: e.assignedAt,
  first_response_at: e.firstResponseAt,
  resolved_at: e.resolvedAt,
  out_of_hours: e.outOfHours,
  expected_at: e.expectedAt,
});

/** A body field that may be null (clear it) or absent (leave it). */
const nullable = (body: Record<string, unknown>, field: string) => (field in body ? (body[field] as string | null) : undefined);

export function escalationRoutes(services: Services): RestRoute[] {
  return [
    {
      method: "get",
      path: "/api/escalations",
      tag: "Escalations",
      summary: "Escalations, newest first, filtered and paged",
      query: z.object({
        page: z.number().int().min(1).optional(),
        limit: z.number().int().min(1).max(100).optional(),
        status: statuses.optional(),
        priority: priorities.optional(),
        assignee_id: z.string().optional(),
        mine: z.enum(["true", "false"]).optional().describe("only the logged-in agent's own"),
        team_id: z.string().optional(),
      }),
      response: {
        status: 200,
        description: "A page of escalations",
        schema: z.object({ escalations: z.array(EscalationRecord), total: z.number(), page: z.number(), limit: z.number() }),
      },
      errors: [401, 403, 422, 429],
      async handle(req) {
        const q = req.query;
        const { escalations } = await runOperation(services, req, ListEscalationsDocument, {
          page: queryVariable(q.page) as number,
          limit: queryVariable(q.limit) as number,
          status: textVariable(q.status) as never,
          priority: textVariable(q.priority) as never,
          assigneeId: textVariable(q.assignee_id),
          mine: booleanVariable(q.mine),
          teamId: textVariable(q.team_id),
        });
        return {
          escalations: escalations.items.map(record),
          total: escalations.total,
          page: escalations.page,
          limit: escalations.limit,
        };
      },
    },
    {
      method: "post",
      path: "/api/escalations",
      tag: "Escalations",
      summary: "Hand a conversation the AI has to the humans: the customer is told, and an online agent given it",
      body: z.object({
        conversation_id: z.string(),
        reason: reasons.optional().describe("default manual"),
        priority: priorities.optional().describe("default by reason: urgent_intent urgent, engine_failure high, else normal"),
        team_id: z.string().optional().describe("default the team of the conversation's intent"),
        note: z.string().optional(),
      }),
      response: { status: 201, description: "Escalated", schema: EscalationRecord },
      errors: [401, 403, 404, 422, 429],
      async handle(req) {
        const body = objectBody(req.body);
        const { createEscalation } = await runOperation(services, req, CreateEscalationDocument, {
          conversationId: body.conversation_id as string,
          reason: body.reason as never,
          priority: body.priority as never,
          teamId: body.team_id as string | undefined,
          note: body.note as string | undefined,
        });
        return record(createEscalation);
      },
    },
    {
      method: "put",
      path: "/api/escalations",
      tag: "Escalations",
      summary:
        "Work an escalation by `id`: assignee_id (null gives it back to the queue), status (resolved hands the conversation " +
        "back to the AI), priority, team_id, note. Agents work unassigned and their own escalations; admins any.",
      body: z.object({
        id: z.string(),
        status: statuses.optional(),
        assignee_id: z.string().nullable().optional(),
        priority: priorities.optional(),
        team_id: z.string().nullable().optional(),
        note: z.string().optional(),
      }),
      response: { status: 200, description: "Updated", schema: EscalationRecord },
      errors: [401, 403, 404, 422, 429],
      async handle(req) {
        const body = objectBody(req.body);
        const { updateEscalation } = await runOperation(services, req, UpdateEscalationDocument, {
          id: bodyId(body),
          status: body.status as never,
          assigneeId: nullable(body, "assignee_id"),
          priority: body.priority as never,
          teamId: nullable(body, "team_id"),
          note: body.note as string | undefined,
        });
        return record(updateEscalation);
      },
    },
  ];
}
