import { refreshAllRollups, rollupQueue } from "../analytics/rollups.js";
import { auditRecoveryQueue, runAuditRecovery } from "../audit/intents.js";
import { inboundQueue, processInbound } from "../channels/inbound-job.js";
import { evaluationQueue, runQueuedEvaluation } from "../evaluations/job.js";
import { deliverEvent } from "../events/delivery.js";
import { deliveryQueue } from "../events/outbox.js";
import { runResyncCheck, scheduleQueue } from "../knowledge/schedule.js";
import { syncQueue, syncSource } from "../knowledge/sync.js";
import { runVectorUpkeep, vectorUpkeepQueue } from "../knowledge/vector-upkeep.js";
import { sendQueue, sendStoredReply } from "../pipeline/deliver.js";
import { retentionQueue, retentionScheduleQueue, runQueuedRetention, runRetentionSchedule } from "../retention/schedule.js";
import type { JobHandler } from "./worker.js";

/** The most of a worker's slots a queue may hold (src/jobs/worker.ts): a tenant's slow endpoint waits, customers do not. */
export const jobShares: Record<string, number> = { [deliveryQueue]: 0.5 };

/** Queue name → handler. Each job kind lives beside its domain and is listed here. */
export const jobHandlers: Record<string, JobHandler> = {
  [inboundQueue]: (job, services) => processInbound(services, job),
  [sendQueue]: (job, services) => sendStoredReply(services, job),
  [syncQueue]: (job, services) => syncSource(services, job),
  [evaluationQueue]: (job, services) => runQueuedEvaluation(services, job),
  [deliveryQueue]: (job, services) => deliverEvent(services, job),
  [scheduleQueue]: async (_job, services) => {
    await runResyncCheck(services);
  },
  [retentionScheduleQueue]: async (_job, services) => {
    await runRetentionSchedule(services);
  },
  [retentionQueue]: (job, services) => runQueuedRetention(services, job.tenantId),
  [auditRecoveryQueue]: async (_job, services) => {
    await runAuditRecovery(services);
  },
  [rollupQueue]: async (_job, services) => {
    await refreshAllRollups(services);
  },
  [vectorUpkeepQueue]: (_job, services) => runVectorUpkeep(services),
};
