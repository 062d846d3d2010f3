import { EngineError } from "../ai/engine.js";
import type { Prisma } from "../db/generated/prisma/client.js";
import { newId } from "../db/ids.js";
import { previewReply } from "../pipeline/preview.js";
import type { Services } from "../services.js";
import { type CaseExpectation, type Expectation, maxCasesPerTenant } from "./cases.js";
import { declined, judge } from "./judge.js";

export const evaluationTriggers = ["manual", "knowledge_change", "cli"] as const;
export type EvaluationTrigger = (typeof evaluationTriggers)[number];

export type EvaluationRunRow = Prisma.EvaluationRunGetPayload<object>;
type CaseRow = Prisma.EvaluationCaseGetPayload<object>;

/** One case of a run: the case as it was asked, what the pipeline answered, and the verdict. */
export interface CaseResult extends CaseExpectation {
  caseId: string;
  question: string;
  /** The customer's messages asked before the question, in the same conversation. */
  earlier: string[];
  channel: string | null;
  passed: boolean;
  reason: string;
  reply: string;
  grounded: boolean;
  declined: boolean;
  handoff: boolean;
  intent: string;
  confidence: number;
  sources: Array<{ sourceId: string; title: string; url: string | null }>;
}

/** The ids of the tenant's knowledge sources a case's `source` names: that id, or every source with that title. */
async function sourceResolver(services: Services, tenantId: string): Promise<(name: string | null) => Set<string>> {
  const sources = await services.db.prisma.knowledgeSource.findMany({ where: { tenantId }, select: { id: true, title: true } });
  return (name) => {
    const wanted = name?.trim().toLowerCase() ?? "";
    return new Set(
      sources.filter((s) => s.id.toLowerCase() === wanted || s.title.trim().toLowerCase() === wanted).map((s) => s.id),
    );
  };
}

async function replayCase(services: Services, c: CaseRow, sourceIds: Set<string>): Promise<CaseResult> {
  const expected: CaseExpectation = { expect: c.expect as Expectation, source: c.source, contains: c.contains };
  const asked = { caseId: c.id, question: c.question, earlier: c.earlier, channel: c.channel, ...expected };
  try {
    const reply = await previewReply(services, {
      tenantId: c.tenantId,
      channel: c.channel ?? "api",
      text: c.question,
      earlier: c.earlier,
    });
    return {
      ...asked,
      ...judge(expected, reply, sourceIds),
      reply: reply.reply,
      grounded: reply.grounded,
      declined: declined(reply),
      handoff: reply.handoff,
      intent: reply.intent,
      confidence: reply.confidence,
      sources: reply.sources.map((s) => ({ sourceId: s.sourceId, title: s.title, url: s.url })),
    };
  } catch (err) {
    // A model server that fails one question fails that case; the others are still worth knowing.
    if (!(err instanceof EngineError)) throw err;
    const failed = { reply: "", grounded: false, declined: false, handoff: false, intent: "", confidence: 0, sources: [] };
    return { ...asked, ...failed, passed: false, reason: `the AI model server failed: ${err.message}` };
  }
}

const ratio = (part: number, whole: number) => (whole ? part / whole : null);

/**
 * Replays the tenant's evaluation cases through the pipeline (previewReply: no conversation is stored)
 * and keeps the run with its totals and per-case results. A run that breaks is kept as failed.
 */
export async function runEvaluation(services: Services, tenantId: string, trigger: EvaluationTrigger): Promise<EvaluationRunRow> {
  const { prisma } = services.db;
  const cases = await prisma.evaluationCase.findMany({
    where: { tenantId },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: maxCasesPerTenant,
  });
  const run = await prisma.evaluationRun.create({ data: { id: newId("evr"), tenantId, trigger, cases: cases.length } });
  try {
    // Answers rank by the tenant's FAQ entry classifier once it is trained: a run just after a knowledge change
    // waits for it, so that runs compare the knowledge, not how far a training had got.
    await services.faqEntries.ready(tenantId);
    const sourceIdsOf = await sourceResolver(services, tenantId);
    const results: CaseResult[] = [];
    for (const c of cases) results.push(await replayCase(services, c, sourceIdsOf(c.source)));
    const passed = results.filter((r) => r.passed).length;
    return await prisma.evaluationRun.update({
      where: { id: run.id },
      data: {
        status: "completed",
        passed,
        accuracy: ratio(passed, results.length),
        declineRate: ratio(results.filter((r) => r.declined).length, results.length),
        results: results as unknown as Prisma.InputJsonArray,
        finishedAt: new Date(),
      },
    });
  } catch (err) {
    await prisma.evaluationRun.update({
      where: { id: run.id },
      data: { status: "failed", error: (err as Error).message, finishedAt: new Date() },
    });
    throw err;
  }
}
