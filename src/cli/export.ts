import { createWriteStream, rmSync } from "node:fs";
import { Readable, type Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { parseArgs } from "node:util";
import { AppError } from "../errors.js";

const usage = `Usage: npm run --silent export -- --url <service URL> --key <API key> [options]
       npm run --silent export -- --tenant <tenant id> [options]

Exports conversation transcripts (messages, sources cited, intents, timeline, hand-offs), streamed.
  --url, --key   through a running service's REST API (an admin or owner key)
  --tenant       directly on the database (DATABASE_URL, or the embedded one when no service holds it)
Options:
  --format json|csv          default json
  --out <file>               default: standard output
  --conversation <id>        one conversation; else every one matching the filters:
  --status, --channel, --from <ISO 8601>, --to <ISO 8601>, --q <text>
Exit code 0 when the export is complete, 2 when it could not be made.`;

const filterNames = ["status", "channel", "from", "to", "q"] as const;

type Options = Partial<Record<(typeof filterNames)[number] | "format" | "conversation", string>>;

async function throughService(url: string, key: string, options: Options, open: () => Writable): Promise<void> {
  const { conversation, ...query } = options;
  const path = conversation ? `/api/conversations/${encodeURIComponent(conversation)}/export` : "/api/conversations/export";
  const target = new URL(path, url);
  for (const [name, value] of Object.entries(query)) if (value !== undefined) target.searchParams.set(name, value);
  const res = await fetch(target, { headers: { authorization: `Bearer ${key}` } });
  if (!res.ok || !res.body) {
    const body = (await res.json().catch(() => null)) as { error?: string } | null;
    throw new Error(`The service answered ${res.status}: ${body?.error ?? res.statusText}`);
  }
  await pipeline(Readable.fromWeb(res.body as WebReadableStream), open());
}

async function onDatabase(tenantId: string, options: Options, open: () => Writable): Promise<void> {
  // Loaded only here: the whole service (database, models) is not needed to export through the API.
  const [{ default: pino }, { loadConfig }, { scopeToTenant }, exports, { createLogger }, { closeServices, createServices }] =
    await Promise.all([
      import("pino"),
      import("../config.js"),
      import("../db/tenant-scope.js"),
      import("../exports/export.js"),
      import("../logger.js"),
      import("../services.js"),
    ]);
  const { exportConversation, exportConversations, parseExportRequest } = exports;
  const { conversation, ...filters } = options;
  const request = parseExportRequest(filters);
  const config = loadConfig();
  // Logs go to stderr: stdout may be the export.
  const services = await createServices(config, { logger: createLogger(config, pino.destination(2)) }).catch((err: Error) => {
    throw new Error(`${err.message}\nOr export through the service: --url http://host:port --key <API key>.`);
  });
  try {
    if (!(await services.db.prisma.tenant.findUnique({ where: { id: tenantId }, select: { id: true } }))) {
      throw new Error(`No tenant ${tenantId}`);
    }
    const db = scopeToTenant(services.db.prisma, tenantId);
    const transcript = conversation
      ? await exportConversation(db, conversation, request.format)
      : exportConversations(db, request);
    await pipeline(Readable.from(transcript.body), open());
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
      out: { type: "string" },
      format: { type: "string" },
      conversation: { type: "string" },
      ...Object.fromEntries(filterNames.map((name) => [name, { type: "string" as const }])),
      help: { type: "boolean", short: "h" },
    },
  });
  const { url, key, tenant, out, help, ...options } = values as Options & {
    url?: string;
    key?: string;
    tenant?: string;
    out?: string;
    help?: boolean;
  };
  const remote = url !== undefined || key !== undefined;
  if (help || !(remote ? url && key && !tenant : tenant)) {
    process.stderr.write(`${usage}\n`);
    return help ? 0 : 2;
  }
  // The file is made only once the export is under way, and removed if it fails: never a file cut short.
  let opened = false;
  const open = () => {
    opened = true;
    return out ? createWriteStream(out) : process.stdout;
  };
  try {
    await (remote ? throughService(url!, key!, options, open) : onDatabase(tenant!, options, open));
  } catch (err) {
    if (out && opened) rmSync(out, { force: true });
    const details =
      err instanceof AppError && err.details?.length ? ` (${err.details.map((d) => `${d.path}: ${d.message}`).join("; ")})` : "";
    process.stderr.write(`Could not export: ${(err as Error).message}${details}\n`);
    return 2;
  }
  if (out) process.stderr.write(`Wrote ${out}\n`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  },
);
