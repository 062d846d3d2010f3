import { z } from "zod";
import { disclosureFor } from "../../conversations/disclosure.js";
import type { Prisma } from "../../db/generated/prisma/client.js";
import { notFound } from "../../errors.js";
import { effectiveRateLimit, updateTenantSettings } from "../../tenants/settings.js";
import { builder } from "../builder.js";
import { parseInput } from "../validate.js";

const RateLimitSetting = builder.objectRef<{ max: number; windowS: number }>("RateLimitSetting").implement({
  fields: (t) => ({
    max: t.exposeInt("max", { description: "Requests allowed per window" }),
    windowS: t.exposeInt("windowS", { description: "Window length in seconds" }),
  }),
});

export const Tenant = builder.prismaObject("Tenant", {
  fields: (t) => ({
    id: t.exposeID("id"),
    name: t.exposeString("name"),
    settings: t.expose("settings", { type: "JSON" }),
    rateLimit: t.field({
      type: RateLimitSetting,
      description: "The rate limit in force for this tenant's API keys",
      resolve: (tenant, _args, ctx) => effectiveRateLimit(tenant.settings, ctx.services.config),
    }),
    aiDisclosure: t.string({
      nullable: true,
      description: "The AI disclosure in force (as written channels say it); null when the tenant turned it off",
      resolve: (tenant) => disclosureFor(tenant, "api"),
    }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
  }),
});

builder.queryField("tenant", (t) =>
  t.prismaField({
    type: "Tenant",
    description: "The caller's tenant",
    authScopes: { permission: "read" },
    resolve: async (query, _root, _args, ctx) => {
      const tenant = await ctx.db.tenant.findUnique({ ...query, where: { id: ctx.tenantId } });
      if (!tenant) throw notFound("Tenant");
      return tenant;
    },
  }),
);

const settingsInput = z.object({
  name: z.string().trim().min(1).max(200).optional(),
  rateLimitMax: z.number().int().min(1).max(100_000).optional(),
  rateLimitWindowS: z.number().int().min(1).max(86_400).optional(),
  resyncIntervalHours: z
    .number()
    .int()
    .min(1)
    .max(24 * 90)
    .optional(),
  crawlMaxPages: z.number().int().min(1).max(10_000).optional(),
  crawlMaxDepth: z.number().int().min(0).max(20).optional(),
  persona: z.string().trim().max(2_000).optional(),
  lowConfidenceEscalateAfter: z.number().int().min(1).max(20).optional(),
  piiRedaction: z.boolean().optional(),
  requireMfa: z.boolean().optional(),
  aiDisclosure: z
    .string()
    .trim()
    .min(1, "must not be empty: to turn the disclosure off, set aiDisclosureEnabled to false")
    .max(500)
    .optional(),
  aiDisclosureEnabled: z.boolean().optional(),
  assistantName: z.string().trim().min(1).max(80).optional(),
});

const resettable = ["aiDisclosure", "assistantName"] as const;

builder.mutationField("updateTenant", (t) =>
  t.prismaField({
    type: "Tenant",
    description: "Renames the tenant or changes its settings (omitted fields keep their value)",
    authScopes: { permission: "configure" },
    audit: { action: "settings.update", target: "tenant", id: (_args, ctx) => ctx.tenantId },
    args: {
      name: t.arg.string({ required: false }),
      rateLimitMax: t.arg.int({ required: false }),
      rateLimitWindowS: t.arg.int({ required: false }),
      resyncIntervalHours: t.arg.int({ required: false, description: "Resync URL sources this often (hours)" }),
      crawlMaxPages: t.arg.int({ required: false, description: "Pages per crawl (default 200)" }),
      crawlMaxDepth: t.arg.int({ required: false, description: "Link depth per crawl (default 3)" }),
      persona: t.arg.string({
        required: false,
        description: "The assistant's persona and instructions from the bank (up to 2,000 characters; the safety rules prevail)",
      }),
      lowConfidenceEscalateAfter: t.arg.int({
        required: false,
        description: "Escalate after this many consecutive answers the AI could not ground (1–20, default 3)",
      }),
      piiRedaction: t.arg.boolean({
        required: false,
        description: "Mask card and account numbers, e-mails and phones before messages leave for an external model (default on)",
      }),
      requireMfa: t.arg.boolean({
        required: false,
        description:
          "Every dashboard user must sign in with a second factor: one without it may only enrol until they have (default off)",
      }),
      aiDisclosure: t.arg.string({
        required: false,
        description:
          "The line every conversation starts with, telling the customer they talk to an AI (up to 500 characters; null: the default)",
      }),
      aiDisclosureEnabled: t.arg.boolean({
        required: false,
        description: "Send the AI disclosure (default on; turned off only by false)",
      }),
      assistantName: t.arg.string({
        required: false,
        description: "The assistant's name in the default disclosure (null: the tenant's name)",
      }),
    },
    resolve: async (query, _root, args, ctx) => {
      const { name, ...settings } = parseInput(settingsInput, args);
      return updateTenantSettings(
        ctx,
        query,
        (current) => {
          const merged: Prisma.JsonObject = { ...current, ...settings };
          // An explicit null (not an omitted argument) puts a setting with a default back to it.
          for (const key of resettable) if (args[key] === null) delete merged[key];
          return merged;
        },
        name,
      );
    },
  }),
);
