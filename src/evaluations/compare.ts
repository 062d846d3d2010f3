import type { TenantDb } from "../db/tenant-scope.js";
import type { CaseResult, EvaluationRunRow } from "./run.js";

export interface CaseRef {
  caseId: string;
  question: string;
}

/** A run against the completed run before it: did the last change make the assistant better or worse, and where. */
export interface RunComparison {
  runId: string;
  accuracy: number | null;
  accuracyDelta: number | null;
  newlyFailing: CaseRef[];
  newlyPassing: CaseRef[];
}

const resultsOf = (run: Pick<EvaluationRunRow, "results">) => run.results as unknown as CaseResult[];

export async function compareWithPrevious(db: TenantDb, run: EvaluationRunRow): Promise<RunComparison | null> {
  if (run.status !== "completed") return null;
  const previous = await db.evaluationRun.findFirst({
    where: {
      status: "completed",
      OR: [{ startedAt: { lt: run.startedAt } }, { startedAt: run.startedAt, id: { lt: run.id } }],
    },
    orderBy: [{ startedAt: "desc" }, { id: "desc" }],
  });
  if (!previous) return null;
  const before = new Map(resultsOf(previous).map((r) => [r.caseId, r.passed]));
  const changed = (from: boolean) =>
    resultsOf(run)
      .filter((r) => before.get(r.caseId) === from && r.passed !== from)
      .map((r) => ({ caseId: r.caseId, question: r.question }));
  return {
    runId: previous.id,
    accuracy: previous.accuracy,
    accuracyDelta: run.accuracy !== null && previous.accuracy !== null ? run.accuracy - previous.accuracy : null,
    newlyFailing: changed(true),
    newlyPassing: changed(false),
  };
}
