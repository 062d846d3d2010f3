import { z } from "zod";
import { newId } from "../../db/ids.js";
import { notFound } from "../../errors.js";
import { builder } from "../builder.js";
import { parseInput } from "../validate.js";

export const Voice = builder.prismaObject("Voice", {
  description: "A text-to-speech voice; the voice channel speaks with the selected one",
  fields: (t) => ({
    id: t.exposeID("id"),
    name: t.exposeString("name", { description: "The provider's voice name, e.g. Polly.Amy or Google.en-GB-Standard-A" }),
    language: t.exposeString("language", { description: "BCP 47 language tag, e.g. en-GB" }),
    speakingRate: t.exposeFloat("speakingRate", { description: "1 is normal speed" }),
    greeting: t.exposeString("greeting", { nullable: true, description: "Said when a call is answered" }),
    selected: t.exposeBoolean("selected"),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
  }),
});

builder.queryField("voices", (t) =>
  t.prismaField({
    type: ["Voice"],
    authScopes: { permission: "read" },
    resolve: (query, _root, _args, ctx) => ctx.db.voice.findMany({ ...query, orderBy: { createdAt: "asc" } }),
  }),
);

const voiceInput = z.object({
  id: z.string().optional(),
  name: z
    .string()
    .trim()
    .regex(/^[\w.:-]{2,80}$/, "a provider voice name such as Polly.Amy")
    .optional(),
  language: z
    .string()
    .regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, "a BCP 47 language tag such as en-GB")
    .optional(),
  speakingRate: z.number().min(0.5).max(2).optional(),
  greeting: z.string().trim().max(500).optional(),
  selected: z.boolean().optional(),
});

builder.mutationField("saveVoice", (t) =>
  t.prismaField({
    type: "Voice",
    description:
      "Adds a voice (name and language required), or changes one by id. Selecting a voice unselects the others; a tenant's first voice is selected",
    authScopes: { permission: "configure" },
    audit: { action: "voice.save", target: "voice", id: (args, _ctx, voice) => voice?.id ?? (args.id ? String(args.id) : null) },
    args: {
      id: t.arg.id({ required: false }),
      name: t.arg.string({ required: false }),
      language: t.arg.string({ required: false }),
      speakingRate: t.arg.float({ required: false }),
      greeting: t.arg.string({ required: false }),
      selected: t.arg.boolean({ required: false }),
    },
    resolve: async (query, _root, args, ctx) => {
      const { id, ...fields } = parseInput(voiceInput, { ...args, id: args.id ?? undefined });
      const existing = id ? await ctx.db.voice.findUnique({ where: { id } }) : null;
      if (id && !existing) throw notFound("Voice");
      if (!existing) parseInput(voiceInput.required({ name: true, language: true }), fields);
      const select = fields.selected ?? (existing ? undefined : (await ctx.db.voice.count()) === 0);
      return ctx.db.$transaction(async (tx) => {
        if (select) await tx.voice.updateMany({ where: { selected: true }, data: { selected: false } });
        const data = { ...fields, ...(select === undefined ? {} : { selected: select }) };
        if (existing) return tx.voice.update({ ...query, where: { id: existing.id }, data });
        return tx.voice.create({
          ...query,
          data: { id: newId("vce"), tenantId: ctx.tenantId, name: fields.name!, language: fields.language!, ...data },
        });
      });
    },
  }),
);

builder.mutationField("deleteVoice", (t) =>
  t.field({
    type: "ID",
    authScopes: { permission: "configure" },
    audit: { action: "voice.delete", target: "voice", id: (args) => String(args.id) },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const id = String(args.id);
      const { count } = await ctx.db.voice.deleteMany({ where: { id } });
      if (!count) throw notFound("Voice");
      return id;
    },
  }),
);
