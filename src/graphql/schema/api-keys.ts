import { z } from "zod";
import { issueApiKey } from "../../auth/api-keys.js";
import { roles } from "../../auth/roles.js";
import { notFound } from "../../errors.js";
import { builder } from "../builder.js";
import { parseInput } from "../validate.js";

export const RoleEnum = builder.enumType("Role", { values: roles });

export const ApiKey = builder.prismaObject("ApiKey", {
  description: "An API key as listed on the Settings page; the key itself is only shown when created",
  fields: (t) => ({
    id: t.exposeID("id"),
    name: t.exposeString("name"),
    prefix: t.exposeString("prefix", { description: "The key's first characters, to tell keys apart" }),
    role: t.exposeString("role"),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    lastUsedAt: t.expose("lastUsedAt", { type: "DateTime", nullable: true }),
    revokedAt: t.expose("revokedAt", { type: "DateTime", nullable: true }),
  }),
});

builder.queryField("apiKeys", (t) =>
  t.prismaField({
    type: ["ApiKey"],
    authScopes: { permission: "manageKeys" },
    resolve: (query, _root, _args, ctx) => ctx.db.apiKey.findMany({ ...query, orderBy: { createdAt: "desc" } }),
  }),
);

const CreatedApiKey = builder.objectRef<{ id: string; key: string }>("CreatedApiKey").implement({
  fields: (t) => ({
    key: t.exposeString("key", { description: "The secret key. Shown this once: store it now." }),
    apiKey: t.prismaField({
      type: "ApiKey",
      resolve: async (query, created, _args, ctx) => ctx.db.apiKey.findUniqueOrThrow({ ...query, where: { id: created.id } }),
    }),
  }),
});

builder.mutationField("createApiKey", (t) =>
  t.field({
    type: CreatedApiKey,
    authScopes: { permission: "manageKeys" },
    audit: { action: "apiKey.create", target: "apiKey", id: (_args, _ctx, created) => created?.id },
    args: {
      name: t.arg.string({ required: true }),
      role: t.arg({ type: RoleEnum, required: false, description: "Defaults to admin" }),
    },
    resolve: async (_root, args, ctx) => {
      const input = parseInput(z.object({ name: z.string().trim().min(1).max(100), role: z.enum(roles).default("admin") }), args);
      const issued = await issueApiKey(ctx.db, ctx.tenantId, input);
      return { id: issued.id, key: issued.key };
    },
  }),
);

builder.mutationField("revokeApiKey", (t) =>
  t.prismaField({
    type: "ApiKey",
    description: "Revokes a key at once; requests with it are answered 401 from then on",
    authScopes: { permission: "manageKeys" },
    audit: { action: "apiKey.revoke", target: "apiKey", id: (args) => String(args.id) },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const id = String(args.id);
      const key = await ctx.db.apiKey.findUnique({ where: { id } });
      if (!key) throw notFound("API key");
      const revoked = await ctx.db.apiKey.update({ ...query, where: { id }, data: { revokedAt: key.revokedAt ?? new Date() } });
      ctx.services.tenants.changed(ctx.tenantId);
      return revoked;
    },
  }),
);
