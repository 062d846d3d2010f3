import { listSessions, revokeSession, revokeSessions } from "../../agents/user-sessions.js";
import { builder } from "../builder.js";

export const AgentSession = builder.prismaObject("UserSession", {
  name: "AgentSession",
  description: "A dashboard user's live session (neither revoked nor expired); the token itself is never shown again",
  fields: (t) => ({
    id: t.exposeID("id"),
    agent: t.relation("user"),
    method: t.exposeString("method", { description: "password, password+mfa, oidc or oidc+mfa" }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    lastUsedAt: t.expose("lastUsedAt", { type: "DateTime", nullable: true, description: "To the minute" }),
    expiresAt: t.expose("expiresAt", { type: "DateTime" }),
    ipAddress: t.exposeString("ipAddress", { nullable: true, description: "The address it was opened from" }),
    userAgent: t.exposeString("userAgent", { nullable: true }),
    current: t.boolean({
      description: "The session of this very request",
      resolve: (session, _args, ctx) => session.id === ctx.principal?.sessionId,
    }),
  }),
});

const agentIdArg = (description: string) => builder.args((t) => ({ agentId: t.id({ required: false, description }) }));

builder.queryField("sessions", (t) =>
  t.prismaField({
    type: ["UserSession"],
    description: "Live sessions, newest first: the caller's own, or an agent's (admins and owners)",
    authScopes: { authenticated: true },
    args: agentIdArg("Whose: the caller when left out"),
    resolve: (query, _root, args, ctx) => listSessions(ctx.db, ctx.principal!, args.agentId ? String(args.agentId) : null, query),
  }),
);

builder.mutationField("revokeSession", (t) =>
  t.boolean({
    description: "Ends a session at once: the caller's own, or any agent's (admins and owners; an owner's, an owner)",
    authScopes: { authenticated: true },
    audit: { action: "session.revoke", target: "session", id: (args) => String(args.id) },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      await revokeSession(ctx.db, ctx.principal!, String(args.id));
      return true;
    },
  }),
);

builder.mutationField("revokeSessions", (t) =>
  t.int({
    description:
      "Ends every session of an agent (admins and owners), or without agentId all of the caller's other sessions; " +
      "the caller's current session stays. Answers how many ended",
    authScopes: { authenticated: true },
    audit: {
      action: "session.revokeAll",
      target: "agent",
      id: (args, ctx) => (args.agentId ? String(args.agentId) : ctx.principal?.id),
    },
    args: agentIdArg("Whose: the caller (all but the current session) when left out"),
    resolve: (_root, args, ctx) => revokeSessions(ctx.db, ctx.principal!, args.agentId ? String(args.agentId) : null),
  }),
);
