import { z } from "zod";
import type { IssuedTicket } from "../../agents/login-tickets.js";
import { requiresMfa } from "../../agents/mfa.js";
import { exchangeOidcTicket } from "../../agents/oidc.js";
import { completeMfaSignIn, type IssuedSession, logIn, type SignInOutcome } from "../../agents/sessions.js";
import { AppError } from "../../errors.js";
import { builder } from "../builder.js";
import type { GraphQLContext } from "../context.js";
import { parseInput } from "../validate.js";

// The caller is not authenticated yet: a new session names its user, read outside any tenant scope.
const agentOfSession = (query: object, userId: string, ctx: GraphQLContext) =>
  ctx.services.db.prisma.user.findUniqueOrThrow({ ...query, where: { id: userId } });

const Session = builder.objectRef<IssuedSession>("Session").implement({
  description: "A dashboard login: send the token as Authorization: Bearer <token>, like an API key",
  fields: (t) => ({
    token: t.exposeString("token", { description: "Shown this once; stored hashed" }),
    expiresAt: t.expose("expiresAt", { type: "DateTime" }),
    agent: t.prismaField({ type: "User", resolve: (query, session, _args, ctx) => agentOfSession(query, session.userId, ctx) }),
  }),
});

const MfaChallenge = builder.objectRef<IssuedTicket>("MfaChallenge").implement({
  description: "The password (or the tenant's provider) was right; send this token with a code to verifyMfaLogin",
  fields: (t) => ({
    challengeToken: t.exposeString("token", { description: "One use, within expiresAt (5 minutes)" }),
    expiresAt: t.expose("expiresAt", { type: "DateTime" }),
  }),
});

const Login = builder.objectRef<SignInOutcome>("Login").implement({
  description:
    "A sign-in's first step: a session (token, expiresAt, agent), or for a user with two-factor sign-in on, only " +
    "mfaChallenge (the other fields null) to complete with verifyMfaLogin",
  fields: (t) => ({
    token: t.string({ nullable: true, description: "The session token, shown this once", resolve: (o) => o.session?.token }),
    expiresAt: t.field({ type: "DateTime", nullable: true, resolve: (o) => o.session?.expiresAt }),
    agent: t.prismaField({
      type: "User",
      nullable: true,
      resolve: (query, o, _args, ctx) => (o.session ? agentOfSession(query, o.session.userId, ctx) : null),
    }),
    mfaChallenge: t.field({ type: MfaChallenge, nullable: true, resolve: (o) => o.mfaChallenge }),
    mfaEnrolmentRequired: t.boolean({
      description:
        "The tenant requires two-factor sign-in and this user has none: the session may only enrol (enrolMfa, " +
        "confirmMfa) until they have",
      resolve: async (o, _args, ctx) => {
        if (!o.session) return false;
        const user = await ctx.services.db.prisma.user.findUniqueOrThrow({
          where: { id: o.session.userId },
          select: { mfaEnabledAt: true, tenant: { select: { settings: true } } },
        });
        return requiresMfa(user.tenant.settings) && !user.mfaEnabledAt;
      },
    }),
  }),
});

const loginInput = z.object({
  email: z.string().trim().toLowerCase().max(200),
  password: z.string().max(200),
  tenantId: z.string().max(100).optional(),
});

const signInClient = (ctx: GraphQLContext) => ({ clientIp: ctx.clientIp, userAgent: ctx.userAgent });

builder.mutationField("login", (t) =>
  t.field({
    type: Login,
    description:
      "Logs a dashboard user in with e-mail and password; tenantId only when the e-mail has accounts at several. " +
      "With two-factor sign-in on, the answer is an mfaChallenge instead of a session",
    audit: { exempt: "recorded by logIn itself: success and failure, in the account's tenant" },
    args: {
      email: t.arg.string({ required: true }),
      password: t.arg.string({ required: true }),
      tenantId: t.arg.id({ required: false }),
    },
    resolve: (_root, args, ctx) => logIn(ctx.services, parseInput(loginInput, args), signInClient(ctx)),
  }),
);

const secondStepInput = z.object({
  challengeToken: z.string().max(200),
  code: z.string().trim().min(1).max(40),
});

builder.mutationField("verifyMfaLogin", (t) =>
  t.field({
    type: Session,
    description:
      "Completes a sign-in with two-factor on: the challenge of login (or exchangeLoginCode) and a code of the " +
      "authenticator app, or one of the recovery codes (each works once). A wrong code is AUTH_INVALID; attempts are " +
      "throttled like passwords",
    audit: { exempt: "recorded by the sign-in itself: success and failure, in the account's tenant" },
    args: { challengeToken: t.arg.string({ required: true }), code: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => completeMfaSignIn(ctx.services, parseInput(secondStepInput, args), signInClient(ctx)),
  }),
);

builder.mutationField("exchangeLoginCode", (t) =>
  t.field({
    type: Login,
    description:
      "Turns the one-time code that a sign-in through the tenant's OpenID Connect provider left in the dashboard's " +
      "URL (#login_code=…) into a session, or an mfaChallenge when the user has two-factor sign-in on",
    audit: { exempt: "recorded by the sign-in itself: success and failure, in the account's tenant" },
    args: { code: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) =>
      exchangeOidcTicket(ctx.services, parseInput(z.object({ code: z.string().max(200) }), args).code, signInClient(ctx)),
  }),
);

builder.mutationField("logout", (t) =>
  t.boolean({
    description: "Ends the caller's session at once",
    authScopes: { signedIn: true },
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
    authScopes: { signedIn: true },
    resolve: (query, _root, _args, ctx) =>
      ctx.principal?.kind === "user" ? ctx.db.user.findUnique({ ...query, where: { id: ctx.principal.id } }) : null,
  }),
);
