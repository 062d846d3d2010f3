import { LocalEngine } from "../ai/local.js";
import type { Services } from "../services.js";
import { answerSettings } from "./answer-settings.js";
import { previewReply } from "./preview.js";
import { retrieveKnowledge } from "./retriever.js";

// Asked of the first tenant at start: any banking question takes the same paths.
const question = "How much does a transfer cost?";

/**
 * Runs, before a process that works the job queue says it is ready, the stages its first pipelines would run for the
 * first time: a tenant's intent model and settings, a knowledge search with its relevance model and, with the offline
 * engine, an answer (previewReply: nothing is stored). First use compiles Prisma's query shapes and warms the search's
 * code; run by the first jobs instead, it held a restarted instance's first webhook acknowledgements on the same
 * thread past 100 ms (issue 14's cold-start rows). A model server is not called at start: with one, the search alone.
 */
export async function warmPipeline(services: Services): Promise<void> {
  const tenant = await services.db.prisma.tenant.findFirst({ select: { id: true }, orderBy: { createdAt: "asc" } });
  if (!tenant) return;
  const started = performance.now();
  try {
    // Its term index first: built later, its pages would share the embedded database's one connection with the first
    // acknowledgements; and the search below then takes the path later searches take.
    services.termIndex.terms(tenant.id);
    await services.termIndex.settled();
    if (services.engine instanceof LocalEngine)
      await previewReply(services, { tenantId: tenant.id, channel: "api", text: question });
    else await Promise.all([answerSettings(services, tenant.id), retrieveKnowledge(services, tenant.id, question)]);
    services.logger.debug({ ms: Math.round(performance.now() - started) }, "pipeline warmed");
  } catch (err) {
    // Only the first customers' wait is at stake: the service starts all the same.
    services.logger.warn({ err }, "could not warm the pipeline at start");
  }
}
