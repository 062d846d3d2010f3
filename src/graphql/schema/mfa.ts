import { z } from "zod";
import { assertMayChangeAgent } from "../../agents/access.js";
import {
  clearMfa,
  confirmEnrolment,
  disableMfa,
  type Enrolment,
  recoveryCodesLeft,
  renewRecoveryCodes,
  requiresMfa,
  startEnrolment,
} from "../../agents/mfa.js";
import { notFound } from "../../errors.js";
import { builder } from "../builder.js";
import { parseInput } from "../validate.js";

const MfaEnrolment = builder.objectRef<Enrolment>("MfaEnrolment").implement({
  description: "A new TOTP secret (SHA-1, 6 digits, 30 s) to add to an authenticator app, then confirm with confirmMfa",
  fields: (t) => ({
    secret: t.exposeString("secret", { description: "Base32, for typing in" }),
    otpauthUri: t.exposeString("otpauthUri", { description: "otpauth://totp/… for apps that take a link" }),
    qrSvg: t.exposeString("qrSvg", { description: "The same URI as a QR code, an SVG document" }),
  }),
});

const MfaStatus = builder
  .objectRef<{ enabled: boolean; enrolmentRequired: boolean; tenantRequires: boolean; recoveryCodesLeft: number }>("MfaStatus")
  .implement({
    fields: (t) => ({
      enabled: t.exposeBoolean("enabled", { description: "Two-factor sign-in is on for the caller" }),
      tenantRequires: t.exposeBoolean("tenantRequires", { description: "The tenant's requireMfa setting" }),
      enrolmentRequired: t.exposeBoolean("enrolmentRequired", {
        description: "The tenant requires it and the caller has not enrolled: nothing else works until they have",
      }),
      recoveryCodesLeft: t.exposeInt("recoveryCodesLeft"),
    }),
  });

const codeInput = z.object({ code: z.string().trim().min(1).max(40) });
const codeArgs = builder.args((t) => ({
  code: t.string({ required: true, description: "A code of the authenticator app, or a recovery code" }),
}));

builder.queryField("mfaStatus", (t) =>
  t.field({
    type: MfaStatus,
    description: "The caller's two-factor sign-in (a dashboard user)",
    authScopes: { signedIn: true },
    resolve: async (_root, _args, ctx) => {
      const principal = ctx.principal!;
      const tenant = await ctx.db.tenant.findUnique({ where: { id: ctx.tenantId }, select: { settings: true } });
      const user =
        principal.kind === "user"
          ? await ctx.db.user.findUnique({ where: { id: principal.id }, select: { mfaEnabledAt: true } })
          : null;
      return {
        enabled: Boolean(user?.mfaEnabledAt),
        tenantRequires: requiresMfa(tenant?.settings),
        enrolmentRequired: principal.mfaEnrolmentRequired === true,
        recoveryCodesLeft: user?.mfaEnabledAt ? await recoveryCodesLeft(ctx.db, principal.id) : 0,
      };
    },
  }),
);

builder.mutationField("enrolMfa", (t) =>
  t.field({
    type: MfaEnrolment,
    description: "Starts the caller's enrolment in two-factor sign-in (again, replacing an unconfirmed secret)",
    authScopes: { signedIn: true },
    audit: { action: "mfa.enrol", target: "agent", id: (_args, ctx) => ctx.principal?.id },
    resolve: (_root, _args, ctx) => startEnrolment(ctx.services, ctx.db, ctx.principal),
  }),
);

builder.mutationField("confirmMfa", (t) =>
  t.stringList({
    description:
      "Confirms the enrolment with a first code of the app: two-factor sign-in is on. Answers the ten one-time " +
      "recovery codes, shown this once",
    authScopes: { signedIn: true },
    audit: { action: "mfa.enable", target: "agent", id: (_args, ctx) => ctx.principal?.id },
    args: { code: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) =>
      confirmEnrolment(ctx.services, ctx.db, ctx.principal, parseInput(codeInput, args).code, ctx.clientIp),
  }),
);

builder.mutationField("renewRecoveryCodes", (t) =>
  t.stringList({
    description: "Ten new recovery codes for the caller, shown this once; the old ones stop working",
    authScopes: { authenticated: true },
    audit: { action: "mfa.renewRecoveryCodes", target: "agent", id: (_args, ctx) => ctx.principal?.id },
    args: codeArgs,
    resolve: (_root, args, ctx) =>
      renewRecoveryCodes(ctx.services, ctx.db, ctx.principal, parseInput(codeInput, args).code, ctx.clientIp),
  }),
);

builder.mutationField("disableMfa", (t) =>
  t.boolean({
    description: "Turns the caller's two-factor sign-in off, with a code (refused while the tenant requires it)",
    authScopes: { authenticated: true },
    audit: { action: "mfa.disable", target: "agent", id: (_args, ctx) => ctx.principal?.id },
    args: codeArgs,
    resolve: async (_root, args, ctx) => {
      await disableMfa(ctx.services, ctx.db, ctx.principal, parseInput(codeInput, args).code, ctx.clientIp);
      return true;
    },
  }),
);

builder.mutationField("resetAgentMfa", (t) =>
  t.boolean({
    description:
      "Turns an agent's two-factor sign-in off, for one who lost both the app and the recovery codes (admins and " +
      "owners; an owner's, an owner). They enrol again at their next login where the tenant requires it",
    authScopes: { permission: "configure" },
    audit: { action: "mfa.reset", target: "agent", id: (args) => String(args.agentId) },
    args: { agentId: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const target = await ctx.db.user.findUnique({ where: { id: String(args.agentId) }, select: { id: true, role: true } });
      if (!target) throw notFound("Agent");
      assertMayChangeAgent(ctx.principal!, target, { mfa: "reset" });
      await clearMfa(ctx.db, target.id);
      return true;
    },
  }),
);
