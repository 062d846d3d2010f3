import { z } from "zod";
import { channelNames } from "../channels/names.js";
import { expectations, maxCasesPerTenant } from "../evaluations/cases.js";
import { evaluationTriggers } from "../evaluations/run.js";
import type { Services } from "../services.js";
import { runOperation } from "./execute.js";
import {
  CreateEvaluationCaseDocument,
  DeleteEvaluationCaseDocument,
  type EvaluationCaseFieldsFragment,
  type EvaluationRunDetailsFragment,
  EvaluationRunDocument,
  type EvaluationRunFieldsFragment,
  ImportEvaluationCasesDocument,
  ListEvaluationCasesDocument,
  ListEvaluationRunsDocument,
  RunEvaluationDocument,
  UpdateEvaluationCaseDocument,
} from "./generated.js";
import { objectBody, pagingQuery, queryVariable, type RestRoute } from "./route.js";

const CaseBody = z.object({
  question: z.string(),
  channel: z.enum(channelNames).nullable().optional().describe("asked in this channel's reply style (default api)"),
  expect: z.enum(expectations),
  source: z.string().optional().describe("for source: a knowledge source's id or title"),
  contains: z.array(z.string()).optional().describe("for contains: phrases the reply must all contain, any case"),
  earlier: z
    .array(z.string())
    .optional()
    .describe("the customer's messages before the question, in the same conversation: a follow-up's context"),
});

const CaseRecord = CaseBody.extend({
  id: z.string(),
  channel: z.enum(channelNames).nullable(),
  source: z.string().nullable(),
  contains: z.array(z.string()),
  earlier: z.array(z.string()),
  created_at: z.string(),
  updated_at: z.string(),
});

const caseRecord = (c: EvaluationCaseFieldsFragment) => ({
  id: c.id,
  question: c.question,
  channel: c.channel,
  expect: c.expect,
  source: c.source,
  contains: c.contains,
  earlier: c.earlier,
  created_at: c.createdAt,
  updated_at: c.updatedAt,
});

/** A case's fields as GraphQL variables; the resolver validates them. */
const caseVariables = (body: Record<string, unknown>) => ({
  question: body.question as string | undefined,
  channel: body.channel as never,
  expect: body.expect as never,
  source: body.source as string | undefined,
  contains: body.contains as string[] | undefined,
  earlier: body.earlier as string[] | undefined,
});

const CaseRef = z.object({ case_id: z.string(), question: z.string() });

const RunRecord = z.object({
  id: z.string(),
  trigger: z.enum(evaluationTriggers),
  status: z.enum(["running", "completed", "failed"]),
  error: z.string().nullable(),
  cases: z.number().int(),
  passed: z.number().int(),
  accuracy: z.number().nullable().describe("passed / cases"),
  decline_rate: z.number().nullable().describe("share of cases the assistant said it did not know"),
  started_at: z.string(),
  finished_at: z.string().nullable(),
  previous: z
    .object({
      run_id: z.string(),
      accuracy: z.number().nullable(),
      accuracy_delta: z.number().nullable(),
      newly_failing: z.array(CaseRef),
      newly_passing: z.array(CaseRef),
    })
    .nullable()
    .describe("against the completed run before this one"),
});

const RunWithResults = RunRecord.extend({
  results: z.array(
    z.object({
      case_id: z.string(),
      question: z.string(),
      earlier: z.array(z.string()),
      channel: z.string().nullable(),
      expect: z.enum(expectations),
      source: z.string().nullable(),
      contains: z.array(z.string()),
      passed: z.boolean(),
      reason: z.string(),
      reply: z.string(),
      grounded: z.boolean(),
      declined: z.boolean(),
      handoff: z.boolean(),
      intent: z.string(),
      confidence: z.number(),
      sources: z.array(z.object({ source_id: z.string(), title: z.string(), url: z.string().nullable() })),
    }),
  ),
});

const caseRef = (c: { caseId: string; question: string }) => ({ case_id: c.caseId, question: c.question });

function runRecord(run: EvaluationRunFieldsFragment) {
  const { previous } = run;
  return {
    id: run.id,
    trigger: run.trigger,
    status: run.status,
    error: run.error,
    cases: run.cases,
    passed: run.passed,
    accuracy: run.accuracy,
    decline_rate: run.declineRate,
    started_at: run.startedAt,
    finished_at: run.finishedAt,
    previous: previous && {
      run_id: previous.runId,
      accuracy: previous.accuracy,
      accuracy_delta: previous.accuracyDelta,
      newly_failing: previous.newlyFailing.map(caseRef),
      newly_passing: previous.newlyPassing.map(caseRef),
    },
  };
}

const runWithResults = (run: EvaluationRunFieldsFragment & EvaluationRunDetailsFragment) => ({
  ...runRecord(run),
  results: run.results.map(({ caseId, sources, ...result }) => ({
    case_id: caseId,
    ...result,
    sources: sources.map((s) => ({ source_id: s.sourceId, title: s.title, url: s.url })),
  })),
});

const tag = "Evaluations";
const idParam = (value: unknown) => String(value);

export function evaluationRoutes(services: Services): RestRoute[] {
  return [
    {
      method: "get",
      path: "/api/evaluations/cases",
      tag,
      summary: "The tenant's evaluation set: test questions with what each reply must do, in the order runs replay them",
      query: z.object(pagingQuery),
      response: {
        status: 200,
        description: "A page of cases",
        schema: z.object({ cases: z.array(CaseRecord), total: z.number(), page: z.number(), limit: z.number() }),
      },
      errors: [401, 403, 422, 429],
      async handle(req) {
        const { evaluationCases } = await runOperation(services, req, ListEvaluationCasesDocument, {
          page: queryVariable(req.query.page) as number,
          limit: queryVariable(req.query.limit) as number,
        });
        const { items, ...paged } = evaluationCases;
        return { cases: items.map(caseRecord), ...paged };
      },
    },
    {
      method: "post",
      path: "/api/evaluations/cases",
      tag,
      summary: "Add a test question with its expectation: source, contains, decline or handoff",
      body: CaseBody,
      response: { status: 201, description: "Created", schema: CaseRecord },
      errors: [401, 403, 422, 429],
      async handle(req) {
        const variables = caseVariables(objectBody(req.body));
        return caseRecord((await runOperation(services, req, CreateEvaluationCaseDocument, variables)).createEvaluationCase);
      },
    },
    {
      method: "post",
      path: "/api/evaluations/cases/import",
      tag,
      summary: `Add many cases at once (all or none; at most ${maxCasesPerTenant} in a set); \`replace\` makes them the whole set`,
      body: z.object({ cases: z.array(CaseBody), replace: z.boolean().optional() }),
      response: {
        status: 200,
        description: "Imported",
        schema: z.object({ created: z.number().int(), total: z.number().int() }),
      },
      errors: [401, 403, 422, 429],
      async handle(req) {
        const body = objectBody(req.body);
        const { importEvaluationCases } = await runOperation(services, req, ImportEvaluationCasesDocument, {
          cases: body.cases as never,
          replace: body.replace === true,
        });
        return importEvaluationCases;
      },
    },
    {
      method: "put",
      path: "/api/evaluations/cases/:id",
      tag,
      summary: "Change a case: the fields given replace the stored ones",
      body: CaseBody.partial(),
      response: { status: 200, description: "Updated", schema: CaseRecord },
      errors: [401, 403, 404, 422, 429],
      async handle(req) {
        const variables = { id: idParam(req.params.id), ...caseVariables(objectBody(req.body)) };
        return caseRecord((await runOperation(services, req, UpdateEvaluationCaseDocument, variables)).updateEvaluationCase);
      },
    },
    {
      method: "delete",
      path: "/api/evaluations/cases/:id",
      tag,
      summary: "Delete a case",
      response: { status: 200, description: "Deleted", schema: z.object({ deleted: z.string() }) },
      errors: [401, 403, 404, 429],
      async handle(req) {
        return (await runOperation(services, req, DeleteEvaluationCaseDocument, { id: idParam(req.params.id) }))
          .deleteEvaluationCase;
      },
    },
    {
      method: "post",
      path: "/api/evaluations/runs",
      tag,
      summary:
        "Replay the evaluation set now, each case as a customer's message on its channel after its earlier messages (nothing is stored as a conversation), and answer the run with its results",
      body: z.object({ trigger: z.enum(["manual", "cli"]).optional().describe("who asked (default manual)") }).optional(),
      response: { status: 201, description: "The completed run with its results", schema: RunWithResults },
      errors: [401, 403, 422, 429, 502],
      async handle(req) {
        const body = req.body === undefined || req.body === null ? {} : objectBody(req.body);
        const { runEvaluation } = await runOperation(services, req, RunEvaluationDocument, { trigger: body.trigger as never });
        return runWithResults(runEvaluation);
      },
    },
    {
      method: "get",
      path: "/api/evaluations/runs",
      tag,
      summary: "The tenant's evaluation runs, newest first, with their totals (results: GET /api/evaluations/runs/{id})",
      query: z.object(pagingQuery),
      response: {
        status: 200,
        description: "A page of runs",
        schema: z.object({ runs: z.array(RunRecord), total: z.number(), page: z.number(), limit: z.number() }),
      },
      errors: [401, 403, 422, 429],
      async handle(req) {
        const { evaluationRuns } = await runOperation(services, req, ListEvaluationRunsDocument, {
          page: queryVariable(req.query.page) as number,
          limit: queryVariable(req.query.limit) as number,
        });
        const { items, ...paged } = evaluationRuns;
        return { runs: items.map(runRecord), ...paged };
      },
    },
    {
      method: "get",
      path: "/api/evaluations/runs/:id",
      tag,
      summary: "One evaluation run with its per-case results and the comparison with the run before",
      response: { status: 200, description: "The run", schema: RunWithResults },
      errors: [401, 403, 404, 429],
      async handle(req) {
        return runWithResults(
          (await runOperation(services, req, EvaluationRunDocument, { id: idParam(req.params.id) })).evaluationRun,
        );
      },
    },
  ];
}
