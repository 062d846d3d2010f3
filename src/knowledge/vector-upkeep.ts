import { periodicJob } from "../jobs/periodic.js";
import type { Services } from "../services.js";

// Tenants grow by crawls and uploads: a new own graph within minutes of crossing the size is soon enough.
const upkeepSchedule = periodicJob("knowledge.vector-upkeep", 5 * 60_000);
export const vectorUpkeepQueue = upkeepSchedule.queue;

/** Books the index's upkeep, for an index that has any (pgvector's own graphs of large tenants). */
export async function startVectorUpkeep(services: Services): Promise<void> {
  if (services.vectors.upkeep) await upkeepSchedule.start(services);
}

/** One run; the next is booked whatever this one did, so that a failed build is tried again next period. */
export async function runVectorUpkeep(services: Services): Promise<void> {
  try {
    const done = await services.vectors.upkeep?.();
    services.logger.debug({ done }, "vector index upkeep");
  } finally {
    await upkeepSchedule.bookNext(services);
  }
}
