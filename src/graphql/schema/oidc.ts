import { z } from "zod";
import { checkOidcIssuer, jitRoles, oidcRedirectUri, oidcSettingsOf, oidcStartPath } from "../../agents/oidc.js";
import { maskSecret } from "../../channels/config.js";
import { publicBaseUrl } from "../../config.js";
import { AppError } from "../../errors.js";
import { builder } from "../builder.js";
import { parseInput } from "../validate.js";

const JitRoleEnum = builder.enumType("JitRole", { values: jitRoles });

export const OidcConfig = builder.prismaObject("OidcConfig", {
  description: "The tenant's OpenID Connect provider for agent sign-in (authorization code flow with PKCE)",
  fields: (t) => ({
    issuer: t.exposeString("issuer"),
    clientId: t.exposeString("clientId"),
    clientSecret: t.string({
      description: "Masked: the secret is write-only",
      resolve: (row, _args, ctx) => maskSecret(ctx.services.secrets.open(row.clientSecret)),
    }),
    allowedDomains: t.exposeStringList("allowedDomains", { description: "E-mail domains that may sign in; empty: any" }),
    emailClaim: t.exposeString("emailClaim", { description: "The ID token claim with the user's e-mail" }),
    jitRole: t.field({
      type: JitRoleEnum,
      nullable: true,
      description: "The role of a person who has no user yet, made at their first sign-in; null: existing users only",
      resolve: (row) => row.jitRole as (typeof jitRoles)[number] | null,
    }),
    enabled: t.exposeBoolean("enabled"),
    redirectUri: t.string({
      description: "Register this as the client's redirect URI at the provider",
      resolve: (_row, _args, ctx) => oidcRedirectUri(ctx.services),
    }),
    signInUrl: t.string({
      description: "Where the dashboard's 'Sign in with …' button sends the browser (?return_to=/path to come back elsewhere)",
      resolve: (row, _args, ctx) => `${publicBaseUrl(ctx.services.config)}${oidcStartPath(row.tenantId)}`,
    }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
  }),
});

const SignInProvider = builder.objectRef<{ name: string; signInPath: string }>("SignInProvider").implement({
  description: "How the sign-in page offers the tenant's OpenID Connect provider",
  fields: (t) => ({
    name: t.exposeString("name", { description: "The provider's host name, for the button: Sign in with <name>" }),
    signInPath: t.exposeString("signInPath", {
      description: "Path of this service that starts the sign-in (?return_to=/dashboard/… to come back there)",
    }),
  }),
});

builder.queryField("signInProvider", (t) =>
  t.field({
    type: SignInProvider,
    nullable: true,
    description:
      "The tenant's enabled OpenID Connect provider for its sign-in page, asked before signing in (no credential): " +
      "null when it has none. Tells no more than its start path does",
    args: { tenantId: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const tenantId = parseInput(z.object({ tenantId: z.string().max(100) }), args).tenantId;
      const settings = await oidcSettingsOf(ctx.services, tenantId);
      return settings && { name: new URL(settings.issuer).host, signInPath: oidcStartPath(tenantId) };
    },
  }),
);

builder.queryField("oidcConfig", (t) =>
  t.prismaField({
    type: "OidcConfig",
    nullable: true,
    description: "The tenant's OpenID Connect provider, or null",
    authScopes: { permission: "configure" },
    resolve: (query, _root, _args, ctx) => ctx.db.oidcConfig.findUnique({ ...query, where: { tenantId: ctx.tenantId } }),
  }),
);

const hostname = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/, "not a domain name");

const saveInput = z.object({
  issuer: z.string().trim().url().max(500),
  clientId: z.string().trim().min(1).max(300),
  clientSecret: z.string().min(1).max(1000).optional(),
  allowedDomains: z.array(hostname).max(50).default([]),
  emailClaim: z
    .string()
    .trim()
    .regex(/^[\w.:/-]{1,100}$/)
    .default("email"),
  jitRole: z.enum(jitRoles).optional(),
  enabled: z.boolean().default(true),
});

builder.mutationField("saveOidcConfig", (t) =>
  t.prismaField({
    type: "OidcConfig",
    description:
      "Sets the tenant's OpenID Connect provider (all fields; clientSecret may be left out to keep the stored one). " +
      "The issuer's discovery document must be readable: a provider that cannot be reached is refused",
    authScopes: { permission: "configure" },
    audit: { action: "oidc.save", target: "oidcConfig", id: (_args, ctx) => ctx.tenantId },
    args: {
      issuer: t.arg.string({ required: true, description: "https://… (its /.well-known/openid-configuration is read)" }),
      clientId: t.arg.string({ required: true }),
      clientSecret: t.arg.string({ required: false, description: "Write-only; required the first time" }),
      allowedDomains: t.arg.stringList({ required: false }),
      emailClaim: t.arg.string({ required: false, description: "Default email" }),
      jitRole: t.arg({ type: JitRoleEnum, required: false, description: "Leave out: only existing users sign in" }),
      enabled: t.arg.boolean({ required: false, description: "Default true" }),
    },
    resolve: async (query, _root, args, ctx) => {
      const input = parseInput(saveInput, args);
      if (new URL(input.issuer).protocol !== "https:" && ctx.services.config.NODE_ENV === "production") {
        throw new AppError("VALIDATION", "The issuer must be an https URL", [{ path: "issuer", message: "must be https" }]);
      }
      const stored = await ctx.db.oidcConfig.findUnique({ where: { tenantId: ctx.tenantId } });
      const clientSecret = input.clientSecret ?? (stored && ctx.services.secrets.open(stored.clientSecret));
      if (!clientSecret) {
        throw new AppError("VALIDATION", "clientSecret is required", [{ path: "clientSecret", message: "required" }]);
      }
      const fields = { ...input, clientSecret, jitRole: input.jitRole ?? null };
      await checkOidcIssuer(ctx.services, { ...fields, tenantId: ctx.tenantId, updatedAt: new Date() });
      const data = { ...fields, clientSecret: ctx.services.secrets.seal(clientSecret) };
      return ctx.db.oidcConfig.upsert({
        ...query,
        where: { tenantId: ctx.tenantId },
        create: { ...data, tenantId: ctx.tenantId },
        update: data,
      });
    },
  }),
);

builder.mutationField("deleteOidcConfig", (t) =>
  t.boolean({
    description: "Removes the tenant's OpenID Connect provider: sign-in through it stops; sessions it opened stay",
    authScopes: { permission: "configure" },
    audit: { action: "oidc.delete", target: "oidcConfig", id: (_args, ctx) => ctx.tenantId },
    resolve: async (_root, _args, ctx) => (await ctx.db.oidcConfig.deleteMany({ where: { tenantId: ctx.tenantId } })).count > 0,
  }),
);
