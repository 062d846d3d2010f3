import { lockTenantFor } from "../db/advisory-lock.js";
import { newId } from "../db/ids.js";
import type { Services } from "../services.js";
import { appendAudit } from "./record.js";

/** The action of the record each pruning appends, in its transaction; verification looks for it. */
export const pruneAction = "audit.prune";

export interface Pruning {
  records: number;
  /** The last record removed, from which the trail now verifies; null when nothing was. */
  anchor: { seq: number; hash: string } | null;
}

// Records removed per transaction.
const batchSize = 1_000;

/**
 * Removes one batch of the tenant's oldest records made before `cutoff`, and records the anchor first (the database
 * lets a record go only once an anchor covers it). Always a prefix of the chain, and never its last record, which
 * the next record chains onto. Under the tenant's audit lock, so no record is appended meanwhile; an `audit.prune`
 * record confirming the anchor is appended in the same transaction.
 */
async function pruneBatch(
  services: Pick<Services, "db" | "secrets">,
  tenantId: string,
  cutoff: Date,
  ceiling: number,
): Promise<Pruning> {
  return services.db.prisma.$transaction(async (tx) => {
    await lockTenantFor(tx, "audit", tenantId);
    const [range] = await tx.$queryRaw<Array<{ first: number | null; last: number | null; young: number | null }>>`
      SELECT min(seq) AS first, max(seq) AS last, min(seq) FILTER (WHERE created_at >= ${cutoff}) AS young
        FROM audit_records WHERE tenant_id = ${tenantId}`;
    if (range?.first == null || range.last == null) return { records: 0, anchor: null };
    const through = Math.min(range.first + batchSize - 1, (range.young ?? range.last) - 1, range.last - 1, ceiling);
    if (through < range.first) return { records: 0, anchor: null };
    const [end] = await tx.$queryRaw<Array<{ hash: string }>>`
      SELECT hash FROM audit_records WHERE tenant_id = ${tenantId} AND seq = ${through}`;
    if (!end) throw new Error(`audit record ${through} of tenant ${tenantId} is missing: the chain is broken, nothing pruned`);
    const records = through - range.first + 1;
    await tx.$executeRaw`
      INSERT INTO audit_anchors (id, tenant_id, through_seq, hash, pruned)
      VALUES (${newId("anc")}, ${tenantId}, ${through}, ${end.hash}, ${records})`;
    const removed = await tx.$executeRaw`DELETE FROM audit_records WHERE tenant_id = ${tenantId} AND seq <= ${through}`;
    if (removed !== records)
      throw new Error(`expected to prune ${records} audit records of tenant ${tenantId}, found ${removed}`);
    await appendAudit(tx, (s) => services.secrets.fingerprint(s), {
      tenantId,
      actor: { kind: "system", label: "retention" },
      action: pruneAction,
      target: { type: "tenant", id: tenantId },
      // Not `hash`: the trail masks values under keys named like secrets, and this one must stay readable.
      details: { records, anchor: { seq: through, sha256: end.hash } },
    });
    return { records, anchor: { seq: through, hash: end.hash } };
  });
}

/** Removes the tenant's audit records made before `cutoff`, oldest first, in bounded transactions. */
export async function pruneAuditRecords(
  services: Pick<Services, "db" | "secrets">,
  tenantId: string,
  cutoff: Date,
): Promise<Pruning> {
  const total: Pruning = { records: 0, anchor: null };
  // The records there are when it starts: each batch appends one, which the next must not count as old too.
  const [last] = await services.db.sql.query<{ seq: number | null }>(
    "SELECT max(seq) AS seq FROM audit_records WHERE tenant_id = $1",
    [tenantId],
  );
  const ceiling = (last?.seq ?? 0) - 1;
  for (;;) {
    const batch = await pruneBatch(services, tenantId, cutoff, ceiling);
    if (!batch.records) return total;
    total.records += batch.records;
    total.anchor = batch.anchor;
  }
}
