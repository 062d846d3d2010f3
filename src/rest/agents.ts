import { z } from "zod";
import type { Services } from "../services.js";
import { runOperation } from "./execute.js";
import { type AgentFieldsFragment, CreateAgentDocument, ListAgentsDocument, UpdateAgentDocument } from "./generated.js";
import { bodyId, booleanVariable, objectBody, queryVariable, type RestRoute, textVariable } from "./route.js";

const roles = z.enum(["owner", "admin", "agent", "viewer"]);
const availabilities = z.enum(["online", "away", "offline"]);

const AgentRecord = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  role: roles,
  availability: availabilities,
  max_concurrent: z.number().int(),
  open_conversations: z.number().int(),
  active: z.boolean(),
  teams: z.array(z.object({ id: z.string(), name: z.string() })),
  created_at: z.string(),
  updated_at: z.string(),
});

const record = (a: AgentFieldsFragment) => ({
  id: a.id,
  name: a.name,
  email: a.email,
  role: a.role,
  availability: a.availability,
  max_concurrent: a.maxConcurrent,
  open_conversations: a.openConversations,
  active: a.active,
  teams: a.teams,
  created_at: a.createdAt,
  updated_at: a.updatedAt,
});

const AgentBody = z.object({
  name: z.string(),
  email: z.string(),
  role: roles.optional().describe("default agent; only an owner makes an owner"),
  password: z.string().optional().describe("for logging in to the dashboard (10+ characters)"),
  availability: availabilities.optional().describe("default offline; online agents are given escalations automatically"),
  max_concurrent: z.number().int().optional().describe("conversations at once, default 5"),
  team_ids: z.array(z.string()).optional(),
});

/** The agent fields of a body as GraphQL variables; the resolver validates them. */
function agentVariables(body: Record<string, unknown>) {
  return {
    name: body.name as string | undefined,
    email: body.email as string | undefined,
    role: body.role as never,
    password: body.password as string | undefined,
    availability: body.availability as never,
    maxConcurrent: body.max_concurrent as number | undefined,
    teamIds: body.team_ids as string[] | undefined,
  };
}

export function agentRoutes(services: Services): RestRoute[] {
  return [
    {
      method: "get",
      path: "/api/agents",
      tag: "Agents",
      summary: "The tenant's agents (dashboard users), by name",
      query: z.object({
        page: z.number().int().min(1).optional(),
        limit: z.number().int().min(1).max(100).optional(),
        role: roles.optional(),
        availability: availabilities.optional(),
        team_id: z.string().optional(),
        active: z.enum(["true", "false"]).optional().describe("default true: removed agents are left out"),
      }),
      response: {
        status: 200,
        description: "A page of agents",
        schema: z.object({ agents: z.array(AgentRecord), total: z.number(), page: z.number(), limit: z.number() }),
      },
      errors: [401, 403, 422, 429],
      async handle(req) {
        const q = req.query;
        const { agents } = await runOperation(services, req, ListAgentsDocument, {
          page: queryVariable(q.page) as number,
          limit: queryVariable(q.limit) as number,
          role: textVariable(q.role) as never,
          availability: textVariable(q.availability) as never,
          teamId: textVariable(q.team_id),
          active: booleanVariable(q.active),
        });
        return { agents: agents.items.map(record), total: agents.total, page: agents.page, limit: agents.limit };
      },
    },
    {
      method: "post",
      path: "/api/agents",
      tag: "Agents",
      summary: "Add an agent (admins and owners)",
      body: AgentBody,
      response: { status: 201, description: "Created", schema: AgentRecord },
      errors: [401, 403, 404, 422, 429],
      async handle(req) {
        const { createAgent } = await runOperation(services, req, CreateAgentDocument, agentVariables(objectBody(req.body)));
        return record(createAgent);
      },
    },
    {
      method: "put",
      path: "/api/agents",
      tag: "Agents",
      summary:
        "Change an agent by `id`. Anyone may change their own name, availability and password (with current_password); " +
        "the rest needs an admin or owner. `active: false` removes the agent. The last owner cannot be removed or demoted (422).",
      body: AgentBody.partial().extend({
        id: z.string(),
        current_password: z.string().optional(),
        active: z.boolean().optional(),
      }),
      response: { status: 200, description: "Updated", schema: AgentRecord },
      errors: [401, 403, 404, 422, 429],
      async handle(req) {
        const body = objectBody(req.body);
        const { updateAgent } = await runOperation(services, req, UpdateAgentDocument, {
          id: bodyId(body),
          ...agentVariables(body),
          currentPassword: body.current_password as string | undefined,
          active: body.active as boolean | undefined,
        });
        return record(updateAgent);
      },
    },
  ];
}
