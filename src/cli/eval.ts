import { parseArgs } from "node:util";
import { formatReport, meetsMinimum, type RunReport } from "../evaluations/report.js";

const usage = `Usage: npm run eval -- --url <service URL> --key <API key> [--min <ratio>]
       npm run eval -- --tenant <tenant id> [--min <ratio>]

Runs the tenant's evaluation set through the assistant and prints each case, the accuracy, the decline
rate and the change from the previous run. Exits 1 when the accuracy is below --min (0 to 1, default 0)
or the set is empty, 2 when the run could not be made.
  --url, --key   through a running service's REST API (what a CI job does; the key's tenant, admin role)
  --tenant       directly on the database (DATABASE_URL, or the embedded one when no service holds it)`;

interface RestRun {
  id: string;
  status: string;
  error: string | null;
  cases: number;
  passed: number;
  accuracy: number | null;
  decline_rate: number | null;
  previous: { accuracy_delta: number | null; newly_failing: unknown[]; newly_passing: unknown[] } | null;
  results: RunReport["results"];
}

async function runThroughService(url: string, key: string): Promise<RunReport> {
  const res = await fetch(new URL("/api/evaluations/runs", url), {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ trigger: "cli" }),
  });
  const body = (await res.json().catch(() => null)) as (RestRun & { error?: string; code?: string }) | null;
  if (!res.ok || !body) throw new Error(`The service answered ${res.status}: ${body?.error ?? res.statusText}`);
  return {
    ...body,
    declineRate: body.decline_rate,
    previous: {
      accuracyDelta: body.previous?.accuracy_delta ?? null,
      newlyFailing: body.previous?.newly_failing.length ?? 0,
      newlyPassing: body.previous?.newly_passing.length ?? 0,
    },
  };
}

/**
 * The service's parts are loaded only here: through the REST API (what a bank's CI job runs) the command is an HTTP
 * client, and loading the database, the models and the indexes took it seconds to start.
 */
async function runOnDatabase(tenantId: string): Promise<RunReport> {
  const [
    { default: pino },
    { loadConfig },
    { scopeToTenant },
    { compareWithPrevious },
    { reportOf },
    { runEvaluation },
    { createLogger },
    { closeServices, createServices },
  ] = await Promise.all([
    import("pino"),
    import("../config.js"),
    import("../db/tenant-scope.js"),
    import("../evaluations/compare.js"),
    import("../evaluations/report.js"),
    import("../evaluations/run.js"),
    import("../logger.js"),
    import("../services.js"),
  ]);
  const config = loadConfig();
  // Logs go to stderr: stdout is the report.
  const services = await createServices(config, { logger: createLogger(config, pino.destination(2)) }).catch((err: Error) => {
    throw new Error(`${err.message}\nOr run through the service: --url http://host:port --key <API key>.`);
  });
  try {
    if (!(await services.db.prisma.tenant.findUnique({ where: { id: tenantId }, select: { id: true } }))) {
      throw new Error(`No tenant ${tenantId}`);
    }
    const run = await runEvaluation(services, tenantId, "cli");
    return reportOf(run, await compareWithPrevious(scopeToTenant(services.db.prisma, tenantId), run));
  } finally {
    await closeServices(services);
  }
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      url: { type: "string" },
      key: { type: "string" },
      tenant: { type: "string" },
      min: { type: "string", default: "0" },
      help: { type: "boolean", short: "h" },
    },
  });
  const min = Number(values.min);
  const remote = values.url !== undefined || values.key !== undefined;
  const valid = Number.isFinite(min) && min >= 0 && min <= 1 && (remote ? values.url && values.key : values.tenant);
  if (values.help || !valid) {
    process.stderr.write(`${usage}\n`);
    return values.help ? 0 : 2;
  }
  let report: RunReport;
  try {
    report = remote ? await runThroughService(values.url!, values.key!) : await runOnDatabase(values.tenant!);
  } catch (err) {
    process.stderr.write(`Could not run the evaluation: ${(err as Error).message}\n`);
    return 2;
  }
  process.stdout.write(formatReport(report, min));
  if (!report.cases) process.stderr.write("The evaluation set is empty: add cases first.\n");
  return meetsMinimum(report, min) ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  },
);
