import type { JobRecord } from "../jobs/queue.js";
import type { Services } from "../services.js";
import { runEvaluation } from "./run.js";

export const evaluationQueue = "evaluation.run";

// A crawl or an import changes several sources in a row: one run, a moment after the last of them, covers them all.
const settleMs = 2_000;

/**
 * After a knowledge source became ready or was deleted: the tenant's evaluation set runs again in the background,
 * when it has one. Never fails the knowledge change itself: a missed run is logged.
 */
export async function evaluateAfterKnowledgeChange(services: Services, tenantId: string): Promise<void> {
  try {
    if (!(await services.db.prisma.evaluationCase.findFirst({ where: { tenantId }, select: { id: true } }))) return;
    await services.jobs.enqueue({
      queue: evaluationQueue,
      tenantId,
      payload: { tenantId },
      dedupeKey: tenantId,
      runAt: new Date(Date.now() + settleMs),
      maxAttempts: 3,
    });
  } catch (err) {
    services.logger.warn({ err, tenantId }, "could not schedule the evaluation run after a knowledge change");
  }
}

export async function runQueuedEvaluation(services: Services, job: JobRecord): Promise<void> {
  await runEvaluation(services, (job.payload as { tenantId: string }).tenantId, "knowledge_change");
}
