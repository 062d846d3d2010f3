import type { Server } from "node:http";
import { startRollupSchedule } from "./analytics/rollups.js";
import { startAuditRecovery } from "./audit/intents.js";
import { loadConfig, publicBaseUrl } from "./config.js";
import { serve } from "./http/serve.js";
import { jobHandlers, jobShares } from "./jobs/handlers.js";
import { Worker } from "./jobs/worker.js";
import { startResyncSchedule } from "./knowledge/schedule.js";
import { startVectorUpkeep } from "./knowledge/vector-upkeep.js";
import { warmPipeline } from "./pipeline/warm-up.js";
import { startRetentionSchedule } from "./retention/schedule.js";
import { closeServices, createServices } from "./services.js";
import { ensureDemoTenant } from "./tenants/bootstrap.js";

// After the drain deadline, closing the database, Redis and the worker thread gets this long before the process just exits.
const closeGraceMs = 5_000;

// Signals are heard from the first moment: Node's default would end the process on the spot, in the middle of its
// start, and leave the embedded database's lock behind. One that comes before the services exist waits for them.
let stop: ((signal: string) => void) | null = null;
let signalled: string | null = null;
for (const signal of ["SIGTERM", "SIGINT"]) {
  process.on(signal, () => {
    if (stop) stop(signal);
    else signalled ??= signal;
  });
}

async function main(): Promise<void> {
  const config = loadConfig();
  const services = await createServices(config);
  const { logger } = services;
  let server: Server | null = null;
  let worker: Worker | null = null;
  let starting: Promise<void> = Promise.resolve();

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down: finishing in-flight requests and jobs");
    const force = setTimeout(() => {
      logger.error("graceful shutdown timed out");
      process.exit(1);
    }, config.SHUTDOWN_TIMEOUT_MS + closeGraceMs);
    force.unref();
    // The rest of the start (the demo tenant, the listening socket, the worker's schedules) ends first.
    await starting.catch(() => undefined);
    // Ends the open chat streams (src/graphql/schema/chat.ts), which server.close() would otherwise wait for.
    services.shutdown.abort();
    const drained = Promise.all([
      server
        ? new Promise<void>((resolve) => {
            // A keep-alive connection whose last response ends after close() would otherwise stay open until
            // its client lets it go: close each one as soon as it is idle.
            const sweep = setInterval(() => server!.closeIdleConnections(), 100);
            server!.close(() => {
              clearInterval(sweep);
              resolve();
            });
            server!.closeIdleConnections();
          })
        : undefined,
      worker?.stop(),
    ]).then(() => true);
    let deadline: NodeJS.Timeout | undefined;
    const inTime = await Promise.race([
      drained,
      new Promise<false>((resolve) => {
        deadline = setTimeout(() => resolve(false), config.SHUTDOWN_TIMEOUT_MS);
      }),
    ]);
    clearTimeout(deadline);
    if (!inTime) {
      logger.warn({ timeoutMs: config.SHUTDOWN_TIMEOUT_MS }, "in-flight requests or jobs outlived the shutdown deadline");
      server?.closeAllConnections();
    }
    const closed = await closeServices(services).then(
      () => true,
      (err: unknown) => {
        logger.error({ err }, "closing the services failed");
        return false;
      },
    );
    logger.info("stopped");
    process.exit(inTime && closed ? 0 : 1);
  };
  starting = start();
  stop = (signal) => void shutdown(signal);
  if (signalled) stop(signalled);
  await starting;

  async function start(): Promise<void> {
    const demo = await ensureDemoTenant(services);
    const baseUrl = publicBaseUrl(config);

    // Before the socket opens: a worker's first pipelines would otherwise do their first-use work beside the first requests.
    if (config.ROLE !== "api") await warmPipeline(services);
    if (config.ROLE !== "worker") {
      server = serve(services, config.PORT, config.HOST);
      await new Promise<void>((resolve, reject) => {
        server!.once("listening", resolve);
        server!.once("error", reject);
      });
      logger.info({ port: config.PORT, role: config.ROLE, database: services.db.kind }, `Parley listening on ${baseUrl}`);
    }

    if (config.ROLE !== "api") {
      worker = new Worker(services, jobHandlers, { concurrency: config.WORKER_CONCURRENCY, shares: jobShares });
      worker.start();
      await startResyncSchedule(services);
      await startRetentionSchedule(services);
      await startAuditRecovery(services);
      await startRollupSchedule(services);
      await startVectorUpkeep(services);
    }

    if (demo) {
      // Printed once, on purpose to stdout: the key is stored hashed and cannot be shown again.
      process.stdout.write(
        [
          "",
          "Created the demo tenant. Its API key (shown once, keep it):",
          `  ${demo.apiKey}`,
          "Try it:",
          `  curl -s ${baseUrl}/api/conversations -H "Authorization: Bearer ${demo.apiKey}"`,
          `See the chat widget on a page: ${baseUrl}/demo`,
          `Open the dashboard: ${baseUrl}/dashboard`,
          `  sign in as ${demo.owner.email} with the password (shown once): ${demo.owner.password}`,
          "",
        ].join("\n"),
      );
    }
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
