import type { Prisma } from "../db/generated/prisma/client.js";
import { genesisHash, recordHash } from "./chain.js";
import { pruneAction } from "./prune.js";

type AuditRow = Prisma.AuditRecordGetPayload<object>;

export interface ChainVerification {
  ok: boolean;
  /** Records checked, up to and including the first broken one. */
  checked: number;
  lastSeq: number | null;
  /** The hash of the last record checked: note it down, and a later verification proves nothing before it changed. */
  lastHash: string | null;
  broken: { id: string; seq: number; reason: string } | null;
  /** Where verification started when retention pruned the oldest records: the last one removed, by seq and hash. */
  anchor: { seq: number; hash: string } | null;
}

/** What verification reads with: a plain or a tenant-scoped client. */
interface AuditReader {
  auditRecord: {
    findMany(args: {
      where: { tenantId: string; seq: { gt: number } };
      orderBy: { seq: "asc" };
      take: number;
    }): PromiseLike<AuditRow[]>;
    findFirst(args: {
      where: {
        tenantId: string;
        action: string;
        seq: { gt: number };
        details: { path: string[]; equals: string };
      };
      select: { id: true };
    }): PromiseLike<{ id: string } | null>;
  };
  auditAnchor: {
    findFirst(args: {
      where: { tenantId: string };
      orderBy: { throughSeq: "desc" };
    }): PromiseLike<{ id: string; throughSeq: number; hash: string } | null>;
  };
}

const batch = 1_000;

/** The record's hash as computed from what is stored now. */
export function storedRecordHash(row: AuditRow): string {
  return recordHash({
    id: row.id,
    tenantId: row.tenantId,
    seq: row.seq,
    createdAt: row.createdAt.toISOString(),
    actorKind: row.actorKind,
    actorId: row.actorId,
    actorLabel: row.actorLabel,
    actorRole: row.actorRole,
    ip: row.ip,
    action: row.action,
    targetType: row.targetType,
    targetId: row.targetId,
    before: row.before,
    after: row.after,
    details: row.details,
    prevHash: row.prevHash,
  });
}

/** Why a record breaks the chain after `previous` (null before the first record), or null when it holds. */
function breakOf(row: AuditRow, previous: { seq: number; hash: string } | null): string | null {
  const expectedSeq = (previous?.seq ?? 0) + 1;
  if (row.seq !== expectedSeq) return `record ${expectedSeq} is missing: the chain jumps from ${expectedSeq - 1} to ${row.seq}`;
  if (row.prevHash !== (previous?.hash ?? genesisHash)) {
    return "its prev_hash is not the hash of the record before it: a record before it was changed, removed or inserted";
  }
  if (storedRecordHash(row) !== row.hash) return "its content does not match its hash: the record was changed";
  return null;
}

/**
 * Whether the pruning that left the anchor is in the chain after it: retention appends its record in the transaction
 * that writes the anchor, so an anchor inserted by hand (to delete records through the trigger) has none.
 */
async function confirmed(db: AuditReader, tenantId: string, anchor: { seq: number; hash: string }): Promise<boolean> {
  const record = await db.auditRecord.findFirst({
    where: {
      tenantId,
      action: pruneAction,
      seq: { gt: anchor.seq },
      details: { path: ["anchor", "sha256"], equals: anchor.hash },
    },
    select: { id: true },
  });
  return record !== null;
}

/**
 * Walks a tenant's chain from the first record (or from the latest anchor, once retention pruned the oldest), in
 * constant memory, and reports the first record where it breaks: a changed record, a removed or inserted one, or a
 * hash rewritten without the ones after it.
 */
export async function verifyAuditChain(db: AuditReader, tenantId: string): Promise<ChainVerification> {
  const latest = await db.auditAnchor.findFirst({ where: { tenantId }, orderBy: { throughSeq: "desc" } });
  const anchor = latest ? { seq: latest.throughSeq, hash: latest.hash } : null;
  if (anchor && !(await confirmed(db, tenantId, anchor))) {
    const reason = `no ${pruneAction} record confirms the anchor at seq ${anchor.seq}: records were removed outside retention`;
    return { ok: false, checked: 0, lastSeq: null, lastHash: null, broken: { id: latest!.id, seq: anchor.seq, reason }, anchor };
  }
  let previous: { seq: number; hash: string } | null = anchor;
  let checked = 0;
  for (;;) {
    const rows = await db.auditRecord.findMany({
      where: { tenantId, seq: { gt: previous?.seq ?? 0 } },
      orderBy: { seq: "asc" },
      take: batch,
    });
    for (const row of rows) {
      checked++;
      const reason = breakOf(row, previous);
      if (reason)
        return { ok: false, checked, lastSeq: row.seq, lastHash: row.hash, broken: { id: row.id, seq: row.seq, reason }, anchor };
      previous = { seq: row.seq, hash: row.hash };
    }
    if (rows.length < batch)
      return { ok: true, checked, lastSeq: previous?.seq ?? null, lastHash: previous?.hash ?? null, broken: null, anchor };
  }
}
