import { parseArgs } from "node:util";
import type { ChainVerification } from "../audit/verify.js";
import { verifyAuditChain } from "../audit/verify.js";
import { loadConfig } from "../config.js";
import { openDatabase } from "../db/client.js";

const usage = `Usage: npm run audit:verify -- --tenant <tenant id>
       npm run audit:verify -- --url <service URL> --key <API key>

Recomputes the hash of every audit record of the tenant, from the first (or from the anchor retention left
when it pruned the oldest), and checks that each names the one
before it. Prints the number of records checked and the last hash (note it down: a later run that still
passes through it proves nothing before it changed), or the first record where the chain breaks and why.
Exits 0 when the chain holds, 1 when it is broken, 2 when it could not be checked.
  --tenant       directly on the database (DATABASE_URL, or the embedded one when no service holds it)
  --url, --key   through a running service (an owner's or admin's key; the key's tenant)`;

async function verifyThroughService(url: string, key: string): Promise<ChainVerification> {
  const res = await fetch(new URL("/api/audit/verify", url), { headers: { authorization: `Bearer ${key}` } });
  const body = (await res.json().catch(() => null)) as Record<string, unknown> | null;
  if (!res.ok || !body) throw new Error(`The service answered ${res.status}: ${body?.error ?? res.statusText}`);
  return {
    ok: body.ok as boolean,
    checked: body.checked as number,
    lastSeq: body.last_seq as number | null,
    lastHash: body.last_hash as string | null,
    broken: body.broken as ChainVerification["broken"],
    anchor: (body.anchor as ChainVerification["anchor"]) ?? null,
  };
}

async function verifyOnDatabase(tenantId: string): Promise<ChainVerification> {
  const config = loadConfig();
  const db = await openDatabase({ url: config.DATABASE_URL, pgliteDir: `${config.DATA_DIR}/pglite` });
  try {
    return await verifyAuditChain(db.prisma, tenantId);
  } finally {
    await db.close();
  }
}

function report(v: ChainVerification): string {
  if (v.broken) {
    return `BROKEN at record ${v.broken.id} (seq ${v.broken.seq}): ${v.broken.reason}\n${v.checked - 1} records before it hold.\n`;
  }
  if (!v.checked) return "No audit records yet.\n";
  const from = v.anchor
    ? `Verified from the retention anchor at seq ${v.anchor.seq} (hash ${v.anchor.hash}): the records up to it were pruned.\n`
    : "";
  return `${from}OK: ${v.checked} records, chain intact up to seq ${v.lastSeq}.\nLast hash: ${v.lastHash}\n`;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      tenant: { type: "string" },
      url: { type: "string" },
      key: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  const remote = values.url !== undefined || values.key !== undefined;
  if (values.help || !(remote ? values.url && values.key : values.tenant)) {
    process.stderr.write(`${usage}\n`);
    return values.help ? 0 : 2;
  }
  let verification: ChainVerification;
  try {
    verification = remote ? await verifyThroughService(values.url!, values.key!) : await verifyOnDatabase(values.tenant!);
  } catch (err) {
    process.stderr.write(`Could not verify the audit trail: ${(err as Error).message}\n`);
    return 2;
  }
  process.stdout.write(report(verification));
  return verification.ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  },
);
