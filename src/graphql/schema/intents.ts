import { z } from "zod";
import { predictIntents } from "../../ai/intents/predict.js";
import { newId } from "../../db/ids.js";
import type { TenantDb } from "../../db/tenant-scope.js";
import { AppError, notFound } from "../../errors.js";
import { builder } from "../builder.js";
import type { GraphQLContext } from "../context.js";
import { parseInput } from "../validate.js";

export const agentTypes = ["faq", "support", "smalltalk", "handoff"] as const;
const maxClassifyTexts = 1_000;
const maxImportExamples = 50_000;

export const Intent = builder.prismaObject("Intent", {
  description: "A tenant-defined intent; its examples train the tenant's classifier",
  fields: (t) => ({
    id: t.exposeID("id"),
    name: t.exposeString("name"),
    description: t.exposeString("description", { nullable: true }),
    agentType: t.exposeString("agentType"),
    urgent: t.exposeBoolean("urgent", { description: "Escalates to a human at once" }),
    examples: t.field({
      type: ["String"],
      select: { examples: { select: { text: true }, orderBy: { createdAt: "asc" } } },
      resolve: (intent) => intent.examples.map((e) => e.text),
    }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
  }),
});

const name = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .regex(/^[\p{L}\p{N}_.:-]+$/u, "letters, digits, _ . : - only");
const example = z.string().trim().min(1).max(1_000);

const intentInput = z.object({
  name,
  description: z.string().trim().max(500).optional(),
  agentType: z.enum(agentTypes).default("faq"),
  urgent: z.boolean().default(false),
  examples: z.array(example).max(10_000).default([]),
});

type Tx = Parameters<Parameters<TenantDb["$transaction"]>[0]>[0];

/** Any change of intents makes every instance retrain the tenant's classifier. */
async function bumpVersion(tx: Tx, tenantId: string) {
  await tx.tenant.update({ where: { id: tenantId }, data: { intentsVersion: { increment: 1 } } });
}

/**
 * Adds examples to intents, once each per intent. One INSERT of arrays rather than Prisma's createMany, which
 * spends about a millisecond of CPU per row: 50,000 examples (an import's maximum) overran the transaction.
 */
async function addExamples(tx: Tx, tenantId: string, texts: Map<string, string[]>): Promise<number> {
  const rows = [...texts].flatMap(([intentId, list]) => [...new Set(list)].map((text) => ({ intentId, text })));
  if (!rows.length) return 0;
  await tx.$executeRaw`
    INSERT INTO intent_examples (id, tenant_id, intent_id, text)
    SELECT unnest(${rows.map(() => newId("int"))}::text[]), ${tenantId}, unnest(${rows.map((r) => r.intentId)}::text[]),
           unnest(${rows.map((r) => r.text)}::text[])`;
  return rows.length;
}

/**
 * Once a change of intents is committed: every instance learns the new version, and this one trains it before the
 * answer, so that it uses the new model at once.
 */
async function retrain(ctx: Pick<GraphQLContext, "services" | "tenantId">): Promise<void> {
  ctx.services.tenants.changed(ctx.tenantId);
  await ctx.services.intents.current(ctx.tenantId).catch(() => undefined);
}

async function uniqueName<T>(work: () => Promise<T>, intentName: string): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if ((err as { code?: string }).code === "P2002") {
      throw new AppError("VALIDATION", `An intent named ${intentName} exists already`, [{ path: "name", message: "taken" }]);
    }
    throw err;
  }
}

const intentArgs = builder.args((t) => ({
  description: t.string({ required: false }),
  agentType: t.string({ required: false, description: "faq (default), support, smalltalk or handoff" }),
  urgent: t.boolean({ required: false }),
  examples: t.stringList({ required: false }),
}));

builder.queryField("intents", (t) =>
  t.prismaField({
    type: ["Intent"],
    description: "The tenant's own intents (the built-in set applies while there are none)",
    authScopes: { permission: "read" },
    resolve: (query, _root, _args, ctx) => ctx.db.intent.findMany({ ...query, orderBy: { name: "asc" } }),
  }),
);

builder.mutationField("createIntent", (t) =>
  t.prismaField({
    type: "Intent",
    authScopes: { permission: "configure" },
    audit: { action: "intent.create", target: "intent", id: (_args, _ctx, intent) => intent?.id },
    args: { name: t.arg.string({ required: true }), ...intentArgs },
    resolve: async (query, _root, args, ctx) => {
      const input = parseInput(intentInput, args);
      const id = newId("int");
      await uniqueName(
        () =>
          ctx.db.$transaction(async (tx) => {
            const { examples, ...fields } = input;
            await tx.intent.create({ data: { id, tenantId: ctx.tenantId, ...fields } });
            await addExamples(tx, ctx.tenantId, new Map([[id, examples]]));
            await bumpVersion(tx, ctx.tenantId);
          }),
        input.name,
      );
      await retrain(ctx);
      return ctx.db.intent.findUniqueOrThrow({ ...query, where: { id } });
    },
  }),
);

builder.mutationField("updateIntent", (t) =>
  t.prismaField({
    type: "Intent",
    description: "Changes an intent; `examples`, when given, replaces all its examples",
    authScopes: { permission: "configure" },
    audit: { action: "intent.update", target: "intent", id: (args) => String(args.id) },
    args: { id: t.arg.id({ required: true }), name: t.arg.string({ required: false }), ...intentArgs },
    resolve: async (query, _root, args, ctx) => {
      const id = String(args.id);
      const input = parseInput(intentInput.partial(), args);
      if (!(await ctx.db.intent.findUnique({ where: { id }, select: { id: true } }))) throw notFound("Intent");
      await uniqueName(
        () =>
          ctx.db.$transaction(async (tx) => {
            const { examples, ...fields } = input;
            const data = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
            if (Object.keys(data).length) await tx.intent.update({ where: { id }, data });
            if (examples) {
              await tx.intentExample.deleteMany({ where: { intentId: id } });
              await addExamples(tx, ctx.tenantId, new Map([[id, examples]]));
            }
            await bumpVersion(tx, ctx.tenantId);
          }),
        input.name ?? id,
      );
      await retrain(ctx);
      return ctx.db.intent.findUniqueOrThrow({ ...query, where: { id } });
    },
  }),
);

const Deleted = builder.objectRef<{ deleted: string }>("DeletedIntent").implement({
  fields: (t) => ({ deleted: t.exposeID("deleted") }),
});

builder.mutationField("deleteIntent", (t) =>
  t.field({
    type: Deleted,
    authScopes: { permission: "configure" },
    audit: { action: "intent.delete", target: "intent", id: (args) => String(args.id) },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const id = String(args.id);
      await ctx.db.$transaction(async (tx) => {
        const removed = await tx.intent.deleteMany({ where: { id } });
        if (!removed.count) throw notFound("Intent");
        await bumpVersion(tx, ctx.tenantId);
      });
      await retrain(ctx);
      return { deleted: id };
    },
  }),
);

const ImportedIntents = builder.objectRef<{ intents: number; examples: number; created: number }>("IntentImport").implement({
  fields: (t) => ({
    intents: t.exposeInt("intents", { description: "Intents the examples belong to" }),
    created: t.exposeInt("created", { description: "Intents created by this import" }),
    examples: t.exposeInt("examples", { description: "Examples added" }),
  }),
});

const ExampleInput = builder.inputType("IntentExampleInput", {
  fields: (t) => ({ text: t.string({ required: true }), intent: t.string({ required: true }) }),
});

/** Adds labelled examples in bulk, creating the intents they name; with `replace`, the tenant's intents are these alone. */
export async function importExamples(
  ctx: Pick<GraphQLContext, "db" | "tenantId" | "services">,
  examples: Array<{ text: string; intent: string }>,
  replace: boolean,
) {
  const rows = parseInput(
    z
      .array(z.object({ text: example, intent: name }))
      .min(1)
      .max(maxImportExamples),
    examples,
  );
  const byName = new Map<string, string[]>();
  for (const row of rows) {
    const texts = byName.get(row.intent);
    if (texts) texts.push(row.text);
    else byName.set(row.intent, [row.text]);
  }
  const imported = await ctx.db.$transaction(
    async (tx) => {
      if (replace) await tx.intent.deleteMany({});
      const existing = new Map((await tx.intent.findMany({ select: { id: true, name: true } })).map((i) => [i.name, i.id]));
      let created = 0;
      const byId = new Map<string, string[]>();
      for (const [intentName, texts] of byName) {
        let id = existing.get(intentName);
        if (!id) {
          id = newId("int");
          await tx.intent.create({ data: { id, tenantId: ctx.tenantId, name: intentName } });
          created++;
        }
        byId.set(id, texts);
      }
      const examples = await addExamples(tx, ctx.tenantId, byId);
      await bumpVersion(tx, ctx.tenantId);
      return { intents: byName.size, examples, created };
    },
    { timeout: 60_000 },
  );
  await retrain(ctx);
  return imported;
}

builder.mutationField("importIntentExamples", (t) =>
  t.field({
    type: ImportedIntents,
    authScopes: { permission: "configure" },
    audit: {
      action: "intent.import",
      target: "intent",
      id: () => null,
      details: (args, imported) => ({ ...imported, replace: args.replace === true }),
    },
    args: { examples: t.arg({ type: [ExampleInput], required: true }), replace: t.arg.boolean({ required: false }) },
    resolve: (_root, args, ctx) => importExamples(ctx, args.examples, args.replace === true),
  }),
);

const Prediction = builder.objectRef<{ intent: string; confidence: number }>("IntentPrediction").implement({
  fields: (t) => ({ intent: t.exposeString("intent"), confidence: t.exposeFloat("confidence") }),
});

builder.queryField("classifyIntents", (t) =>
  t.field({
    type: [Prediction],
    description: `The tenant's classifier on up to ${maxClassifyTexts} texts, to test it`,
    authScopes: { permission: "read" },
    args: { texts: t.arg.stringList({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const texts = parseInput(z.array(z.string().max(4_000)).min(1).max(maxClassifyTexts), args.texts);
      const model = await ctx.services.intents.current(ctx.tenantId);
      return predictIntents(model.classifier, texts);
    },
  }),
);
