import { z } from "zod";
import type { ChannelName } from "../../channels/names.js";
import type { Prisma } from "../../db/generated/prisma/client.js";
import { newId } from "../../db/ids.js";
import { AppError, notFound } from "../../errors.js";
import {
  caseInput,
  type EvaluationCaseInput,
  type Expectation,
  expectations,
  maxCasesPerTenant,
  maxEarlierMessages,
} from "../../evaluations/cases.js";
import { type CaseRef, compareWithPrevious, type RunComparison } from "../../evaluations/compare.js";
import { type CaseResult, type EvaluationRunRow, evaluationTriggers, runEvaluation } from "../../evaluations/run.js";
import { builder } from "../builder.js";
import type { GraphQLContext } from "../context.js";
import { type Page, pageArgs, pageOf, pagingInput, skipTake } from "../paging.js";
import { parseInput } from "../validate.js";
import { ChannelEnum } from "./conversations.js";

const ExpectationEnum = builder.enumType("EvaluationExpectation", {
  values: expectations,
  description:
    "source: the reply cites the knowledge source; contains: the reply contains every phrase; " +
    "decline: the assistant says it does not know; handoff: the message goes to a human",
});
const TriggerEnum = builder.enumType("EvaluationTrigger", { values: evaluationTriggers });

export const EvaluationCase = builder.prismaObject("EvaluationCase", {
  description: "A test question of the tenant's evaluation set, with what a right reply does",
  fields: (t) => ({
    id: t.exposeID("id"),
    question: t.exposeString("question"),
    channel: t.field({
      type: ChannelEnum,
      nullable: true,
      description: "The channel whose reply style it is asked in (null: api)",
      resolve: (c) => c.channel as ChannelName | null,
    }),
    expect: t.field({ type: ExpectationEnum, resolve: (c) => c.expect as Expectation }),
    source: t.exposeString("source", { nullable: true, description: "For source: a knowledge source's id or title" }),
    contains: t.exposeStringList("contains", { description: "For contains: phrases the reply must all contain" }),
    earlier: t.exposeStringList("earlier", {
      description: "The customer's messages before the question, in the same conversation: a follow-up's context",
    }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
  }),
});

const ResultSource = builder.objectRef<CaseResult["sources"][number]>("EvaluationResultSource").implement({
  fields: (t) => ({
    sourceId: t.exposeID("sourceId"),
    title: t.exposeString("title"),
    url: t.exposeString("url", { nullable: true }),
  }),
});

const CaseResultRef = builder.objectRef<CaseResult>("EvaluationCaseResult").implement({
  description: "One case of a run: as it was asked, what the pipeline replied, and the verdict",
  fields: (t) => ({
    caseId: t.exposeID("caseId"),
    question: t.exposeString("question"),
    // Runs kept from before cases had earlier messages hold none.
    earlier: t.stringList({ resolve: (r) => r.earlier ?? [] }),
    channel: t.exposeString("channel", { nullable: true }),
    expect: t.field({ type: ExpectationEnum, resolve: (r) => r.expect }),
    source: t.exposeString("source", { nullable: true }),
    contains: t.exposeStringList("contains"),
    passed: t.exposeBoolean("passed"),
    reason: t.exposeString("reason", { description: "Why it passed or failed" }),
    reply: t.exposeString("reply"),
    grounded: t.exposeBoolean("grounded", { description: "Answered from the knowledge base" }),
    declined: t.exposeBoolean("declined", { description: "Said it does not know" }),
    handoff: t.exposeBoolean("handoff", { description: "Handed to a human" }),
    intent: t.exposeString("intent"),
    confidence: t.exposeFloat("confidence"),
    sources: t.field({ type: [ResultSource], resolve: (r) => r.sources }),
  }),
});

const CaseRefType = builder.objectRef<CaseRef>("EvaluationCaseRef").implement({
  fields: (t) => ({ caseId: t.exposeID("caseId"), question: t.exposeString("question") }),
});

const Comparison = builder.objectRef<RunComparison>("EvaluationComparison").implement({
  description: "The run against the completed run before it",
  fields: (t) => ({
    runId: t.exposeID("runId", { description: "The previous run" }),
    accuracy: t.exposeFloat("accuracy", { nullable: true, description: "The previous run's accuracy" }),
    accuracyDelta: t.exposeFloat("accuracyDelta", {
      nullable: true,
      description: "This run's accuracy minus the previous one's",
    }),
    newlyFailing: t.field({
      type: [CaseRefType],
      description: "Cases that passed then and fail now",
      resolve: (c) => c.newlyFailing,
    }),
    newlyPassing: t.field({
      type: [CaseRefType],
      description: "Cases that failed then and pass now",
      resolve: (c) => c.newlyPassing,
    }),
  }),
});

export const EvaluationRun = builder.prismaObject("EvaluationRun", {
  description: "One replay of the tenant's evaluation set through the pipeline",
  fields: (t) => ({
    id: t.exposeID("id"),
    trigger: t.field({ type: TriggerEnum, resolve: (r) => r.trigger as (typeof evaluationTriggers)[number] }),
    status: t.exposeString("status", { description: "running → completed | failed" }),
    error: t.exposeString("error", { nullable: true }),
    cases: t.exposeInt("cases"),
    passed: t.exposeInt("passed"),
    accuracy: t.exposeFloat("accuracy", { nullable: true, description: "passed / cases" }),
    declineRate: t.exposeFloat("declineRate", { nullable: true, description: "Share of cases the assistant declined" }),
    startedAt: t.expose("startedAt", { type: "DateTime" }),
    finishedAt: t.expose("finishedAt", { type: "DateTime", nullable: true }),
    results: t.field({ type: [CaseResultRef], resolve: (r) => r.results as unknown as CaseResult[] }),
    previous: t.field({
      type: Comparison,
      nullable: true,
      description: "The comparison with the completed run before this one (null for the first, or a run not completed)",
      resolve: (run, _args, ctx) => compareWithPrevious(ctx.db, run as EvaluationRunRow),
    }),
  }),
});

type CaseRow = Prisma.EvaluationCaseGetPayload<object>;
const CasePage = pageOf<CaseRow>("EvaluationCasePage", EvaluationCase);
const RunPage = pageOf<EvaluationRunRow>("EvaluationRunPage", EvaluationRun);

builder.queryField("evaluationCases", (t) =>
  t.field({
    type: CasePage,
    description: "The tenant's evaluation set, oldest first (the order runs replay it)",
    authScopes: { permission: "read" },
    args: pageArgs,
    resolve: async (_root, args, ctx): Promise<Page<CaseRow>> => {
      const input = parseInput(z.object(pagingInput), args);
      const [items, total] = await Promise.all([
        ctx.db.evaluationCase.findMany({ orderBy: [{ createdAt: "asc" }, { id: "asc" }], ...skipTake(input.page, input.limit) }),
        ctx.db.evaluationCase.count(),
      ]);
      return { items, total, page: input.page, limit: input.limit };
    },
  }),
);

const caseArgs = builder.args((t) => ({
  question: t.string({ required: false }),
  channel: t.field({ type: ChannelEnum, required: false, description: "Asked in this channel's reply style (default api)" }),
  expect: t.field({ type: ExpectationEnum, required: false }),
  source: t.string({ required: false, description: "For source: a knowledge source's id or title" }),
  contains: t.stringList({ required: false, description: "For contains: phrases the reply must all contain (any case)" }),
  earlier: t.stringList({
    required: false,
    description: `The customer's messages before the question, in one conversation (at most ${maxEarlierMessages})`,
  }),
}));

async function assertRoom(ctx: Pick<GraphQLContext, "db">, adding: number, replacing = false) {
  const total = (replacing ? 0 : await ctx.db.evaluationCase.count()) + adding;
  if (total > maxCasesPerTenant) {
    throw new AppError("VALIDATION", `An evaluation set holds at most ${maxCasesPerTenant} cases`, [
      { path: "cases", message: `at most ${maxCasesPerTenant}` },
    ]);
  }
}

builder.mutationField("createEvaluationCase", (t) =>
  t.prismaField({
    type: "EvaluationCase",
    authScopes: { permission: "configure" },
    audit: { action: "evaluationCase.create", target: "evaluationCase", id: (_args, _ctx, c) => c?.id },
    args: caseArgs,
    resolve: async (query, _root, args, ctx) => {
      const input = parseInput(caseInput, args);
      await assertRoom(ctx, 1);
      return ctx.db.evaluationCase.create({ ...query, data: { id: newId("evc"), tenantId: ctx.tenantId, ...input } });
    },
  }),
);

builder.mutationField("updateEvaluationCase", (t) =>
  t.prismaField({
    type: "EvaluationCase",
    description: "Changes a case; the fields given replace the stored ones, and the whole case is checked again",
    authScopes: { permission: "configure" },
    audit: { action: "evaluationCase.update", target: "evaluationCase", id: (args) => String(args.id) },
    args: { id: t.arg.id({ required: true }), ...caseArgs },
    resolve: async (query, _root, args, ctx) => {
      const id = String(args.id);
      const stored = await ctx.db.evaluationCase.findUnique({ where: { id } });
      if (!stored) throw notFound("Evaluation case");
      const given = Object.fromEntries(Object.entries(args).filter(([key, v]) => key !== "id" && v !== null && v !== undefined));
      // A new expectation drops the old one's own field unless it is given again.
      const kept = given.expect && given.expect !== stored.expect ? { source: null, contains: [] } : {};
      const input: EvaluationCaseInput = parseInput(caseInput, { ...stored, ...kept, ...given });
      return ctx.db.evaluationCase.update({ ...query, where: { id }, data: input });
    },
  }),
);

const DeletedCase = builder.objectRef<{ deleted: string }>("DeletedEvaluationCase").implement({
  fields: (t) => ({ deleted: t.exposeID("deleted") }),
});

builder.mutationField("deleteEvaluationCase", (t) =>
  t.field({
    type: DeletedCase,
    authScopes: { permission: "configure" },
    audit: { action: "evaluationCase.delete", target: "evaluationCase", id: (args) => String(args.id) },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const id = String(args.id);
      const removed = await ctx.db.evaluationCase.deleteMany({ where: { id } });
      if (!removed.count) throw notFound("Evaluation case");
      return { deleted: id };
    },
  }),
);

const CaseInputType = builder.inputType("EvaluationCaseInput", {
  fields: (t) => ({
    question: t.string({ required: true }),
    channel: t.field({ type: ChannelEnum, required: false }),
    expect: t.field({ type: ExpectationEnum, required: true }),
    source: t.string({ required: false }),
    contains: t.stringList({ required: false }),
    earlier: t.stringList({ required: false }),
  }),
});

const Imported = builder.objectRef<{ created: number; total: number }>("EvaluationCaseImport").implement({
  fields: (t) => ({
    created: t.exposeInt("created", { description: "Cases added by this import" }),
    total: t.exposeInt("total", { description: "Cases in the set now" }),
  }),
});

/** Adds cases in bulk (all or none); with `replace`, the set is these cases alone. */
export async function importEvaluationCases(ctx: Pick<GraphQLContext, "db" | "tenantId">, cases: unknown[], replace: boolean) {
  const rows = parseInput(z.array(caseInput).min(1).max(maxCasesPerTenant), cases);
  await assertRoom(ctx, rows.length, replace);
  return ctx.db.$transaction(
    async (tx) => {
      if (replace) await tx.evaluationCase.deleteMany({});
      // One by one, so that ids and creation times keep the given order: runs replay the set in it.
      for (const row of rows) await tx.evaluationCase.create({ data: { id: newId("evc"), tenantId: ctx.tenantId, ...row } });
      return { created: rows.length, total: await tx.evaluationCase.count() };
    },
    { timeout: 60_000 },
  );
}

builder.mutationField("importEvaluationCases", (t) =>
  t.field({
    type: Imported,
    authScopes: { permission: "configure" },
    audit: {
      action: "evaluationCase.import",
      target: "evaluationCase",
      id: () => null,
      details: (args) => ({ cases: args.cases.length, replace: args.replace === true }),
    },
    args: { cases: t.arg({ type: [CaseInputType], required: true }), replace: t.arg.boolean({ required: false }) },
    resolve: (_root, args, ctx) => importEvaluationCases(ctx, args.cases, args.replace === true),
  }),
);

builder.mutationField("runEvaluation", (t) =>
  t.prismaField({
    type: "EvaluationRun",
    description: `Replays the evaluation set (at most ${maxCasesPerTenant} cases) through the pipeline now and returns the run`,
    authScopes: { permission: "configure" },
    audit: { action: "evaluation.run", target: "evaluationRun", id: (_args, _ctx, run) => run?.id },
    args: {
      trigger: t.arg({ type: TriggerEnum, required: false, description: "manual (default) or cli: who asked" }),
    },
    resolve: async (query, _root, args, ctx) => {
      const trigger = parseInput(z.enum(["manual", "cli"]).default("manual"), args.trigger ?? undefined);
      const run = await runEvaluation(ctx.services, ctx.tenantId, trigger);
      return ctx.db.evaluationRun.findUniqueOrThrow({ ...query, where: { id: run.id } });
    },
  }),
);

builder.queryField("evaluationRuns", (t) =>
  t.field({
    type: RunPage,
    description: "The tenant's evaluation runs, newest first",
    authScopes: { permission: "read" },
    args: pageArgs,
    resolve: async (_root, args, ctx): Promise<Page<EvaluationRunRow>> => {
      const input = parseInput(z.object(pagingInput), args);
      const [items, total] = await Promise.all([
        ctx.db.evaluationRun.findMany({ orderBy: [{ startedAt: "desc" }, { id: "desc" }], ...skipTake(input.page, input.limit) }),
        ctx.db.evaluationRun.count(),
      ]);
      return { items, total, page: input.page, limit: input.limit };
    },
  }),
);

builder.queryField("evaluationRun", (t) =>
  t.prismaField({
    type: "EvaluationRun",
    authScopes: { permission: "read" },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const run = await ctx.db.evaluationRun.findUnique({ ...query, where: { id: String(args.id) } });
      if (!run) throw notFound("Evaluation run");
      return run;
    },
  }),
);
