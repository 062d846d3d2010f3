import { z } from "zod";
import type { Services } from "../services.js";
import { runOperation } from "./execute.js";
import { ListSessionsDocument, RevokeSessionDocument, RevokeSessionsDocument } from "./generated.js";
import type { RestRoute } from "./route.js";
import { textVariable } from "./route.js";

const SessionRecord = z.object({
  id: z.string(),
  agent_id: z.string(),
  method: z.string().describe("password, password+mfa, oidc or oidc+mfa"),
  created_at: z.string(),
  last_used_at: z.string().nullable().describe("to the minute"),
  expires_at: z.string(),
  ip_address: z.string().nullable().describe("the address it was opened from"),
  user_agent: z.string().nullable(),
  current: z.boolean().describe("the session of this very request"),
});

const agentQuery = z.object({
  agent_id: z.string().optional().describe("whose sessions: the caller's own when left out (admins and owners: any agent's)"),
});

/** Dashboard sessions (README, Agents and login): listed and revoked, an integrator's offboarding included. */
export function sessionRoutes(services: Services): RestRoute[] {
  return [
    {
      method: "get",
      path: "/api/sessions",
      tag: "Agents",
      summary: "Live dashboard sessions, newest first: the caller's own, or an agent's (admins and owners)",
      query: agentQuery,
      response: { status: 200, description: "The sessions", schema: z.object({ sessions: z.array(SessionRecord) }) },
      errors: [401, 403, 404, 422, 429],
      async handle(req) {
        const { sessions } = await runOperation(services, req, ListSessionsDocument, {
          agentId: textVariable(req.query.agent_id),
        });
        return {
          sessions: sessions.map((s) => ({
            id: s.id,
            agent_id: s.agent.id,
            method: s.method,
            created_at: s.createdAt,
            last_used_at: s.lastUsedAt,
            expires_at: s.expiresAt,
            ip_address: s.ipAddress,
            user_agent: s.userAgent,
            current: s.current,
          })),
        };
      },
    },
    {
      method: "delete",
      path: "/api/sessions",
      tag: "Agents",
      summary:
        "Ends every session of an agent (admins and owners; an owner's, an owner), or without agent_id the caller's " +
        "other sessions; the request's own session stays. Their tokens are refused from the next request on",
      query: agentQuery,
      response: { status: 200, description: "How many ended", schema: z.object({ revoked: z.number().int() }) },
      errors: [401, 403, 404, 422, 429],
      async handle(req) {
        const { revokeSessions } = await runOperation(services, req, RevokeSessionsDocument, {
          agentId: textVariable(req.query.agent_id),
        });
        return { revoked: revokeSessions };
      },
    },
    {
      method: "delete",
      path: "/api/sessions/:id",
      tag: "Agents",
      summary: "Ends one session: the caller's own, or any agent's (admins and owners)",
      response: { status: 200, description: "Ended", schema: z.object({ revoked: z.literal(true) }) },
      errors: [401, 403, 404, 429],
      async handle(req) {
        await runOperation(services, req, RevokeSessionDocument, { id: String(req.params.id) });
        return { revoked: true };
      },
    },
  ];
}
