import { z } from "zod";
import { type IssuedSession, logIn } from "../../agents/sessions.js";
import { AppError } from "../../errors.js";
import { builder } from "../builder.js";
import { parseInput } from "../validate.js";

const Session = builder.objectRef<IssuedSession>("Session").implement({
  description: "A dashboard login: send the token as Authorization: Bearer <token>, like an API key",
  fields: (t) => ({
    token: t.exposeString("token", { description: "Shown this once; stored hashed" }),
    expiresAt: t.expose("expiresAt", { type: "DateTime" }),
    agent: t.prismaField({
      type: "User",
      // The caller is not authenticated yet: the new session names the user, read outside any tenant scope.
      resolve: (query, session, _args, ctx) =>
        ctx.services.db.prisma.user.findUniqueOrThrow({ ...query, where: { id: session.userId } }),
    }),
  }),
});

const loginInput = z.object({
  email: z.string().trim().toLowerCase().max(200),
  password: z.string().max(200),
  tenantId: z.string().max(100).optional(),
});

builder.mutationField("login", (t) =>
  t.field({
    type: Session,
    description: "Logs a dashboard user in with e-mail and password; tenantId only when the e-mail has accounts at several",
    audit: { exempt: "recorded by logIn itself: success and failure, in the account's tenant" },
    args: {
      email: t.arg.string({ required: true }),
      password: t.arg.string({ required: true }),
      tenantId: t.arg.id({ required: false }),
    },
    resolve: (_root, args, ctx) => logIn(ctx.services, parseInput(loginInput, args), ctx.clientIp),
  }),
);

builder.mutationField("logout", (t) =>
  t.boolean({
    description: "Ends the caller's session at once",
    authScopes: { authenticated: true },
    audit: { action: "session.logout", target: "agent", id: (_args, ctx) => ctx.principal?.id },
    resolve: async (_root, _args, ctx) => {
      const sessionId = ctx.principal?.sessionId;
      if (!sessionId) throw new AppError("VALIDATION", "Only a dashboard session can log out; revoke an API key instead");
      await ctx.db.userSession.updateMany({ where: { id: sessionId, revokedAt: null }, data: { revokedAt: new Date() } });
      return true;
    },
  }),
);

builder.queryField("me", (t) =>
  t.prismaField({
    type: "User",
    nullable: true,
    description: "The logged-in dashboard user; null for an API key",
    authScopes: { authenticated: true },
    resolve: (query, _root, _args, ctx) =>
      ctx.principal?.kind === "user" ? ctx.db.user.findUnique({ ...query, where: { id: ctx.principal.id } }) : null,
  }),
);
