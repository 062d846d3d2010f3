import { newId } from "../db/ids.js";
import { scopeToTenant } from "../db/tenant-scope.js";
import { periodicJob } from "../jobs/periodic.js";
import type { Services } from "../services.js";
import { type AuditActor, type AuditEntry, appendAudit, MaskedValue, maskSecrets } from "./record.js";
import { type AuditTargetType, auditTargets } from "./targets.js";

// A change and its audit record cannot share one transaction (a mutation's resolver commits its own work), so the
// record's first half is written before the change: an instance that stops between the change and its record
// leaves this intent behind, and a later sweep turns it into a record. No change goes unrecorded.

const recoverySchedule = periodicJob("audit.recover", 10 * 60_000);
export const auditRecoveryQueue = recoverySchedule.queue;
/** Longer than any audited mutation runs: an intent older than this belongs to an instance that stopped. */
export const auditIntentLeaseMs = 15 * 60_000;

type AuditServices = Pick<Services, "db" | "secrets">;

/** Writes the intent of an audited change, its `before` already masked: secrets never rest in plain text here. */
export async function openAuditIntent(services: AuditServices, entry: AuditEntry): Promise<string> {
  const id = newId("aui");
  const masked = maskSecrets(entry.before, (s) => services.secrets.fingerprint(s));
  await services.db.sql.query(
    `INSERT INTO audit_intents (id, tenant_id, actor, ip, action, target_type, target_id, before)
     VALUES ($1, $2, $3::jsonb, $4, $5, $6, $7, $8::jsonb)`,
    [
      id,
      entry.tenantId,
      JSON.stringify(entry.actor),
      entry.ip || null,
      entry.action,
      entry.target?.type ?? "",
      entry.target?.id ?? null,
      masked === null ? null : JSON.stringify(masked),
    ],
  );
  return id;
}

/** A change that failed changed nothing: its intent goes without a record. */
export async function dropAuditIntent(services: AuditServices, id: string): Promise<void> {
  await services.db.sql.query("DELETE FROM audit_intents WHERE id = $1", [id]);
}

interface IntentRow {
  id: string;
  tenant_id: string;
  actor: AuditActor;
  ip: string | null;
  action: string;
  target_type: string;
  target_id: string | null;
  before: unknown;
}

/**
 * Records every intent older than the lease: the change as it was before and as the target is now, the outcome
 * marked unknown (the change may or may not have been made). Claimed by deleting it in the record's transaction,
 * so instances sweeping at once record each intent once.
 */
export async function recoverAuditIntents(services: Services, now = Date.now()): Promise<number> {
  const stale = await services.db.sql.query<IntentRow>(
    `SELECT id, tenant_id, actor, ip, action, target_type, target_id, before FROM audit_intents
      WHERE created_at < $1 ORDER BY created_at LIMIT 500`,
    [new Date(now - auditIntentLeaseMs).toISOString()],
  );
  let recorded = 0;
  for (const intent of stale) {
    // A target type this version no longer knows (an intent from an older version) is recorded without `after`.
    const snapshot = (auditTargets as Partial<Record<string, (typeof auditTargets)[AuditTargetType]>>)[intent.target_type];
    const scope = { db: scopeToTenant(services.db.prisma, intent.tenant_id), services, tenantId: intent.tenant_id };
    const after = snapshot && intent.target_id ? await snapshot(scope, intent.target_id) : null;
    recorded += await services.db.prisma.$transaction(async (tx) => {
      const claimed = await tx.$executeRaw`DELETE FROM audit_intents WHERE id = ${intent.id}`;
      if (claimed === 0) return 0;
      await appendAudit(tx, (s) => services.secrets.fingerprint(s), {
        tenantId: intent.tenant_id,
        actor: intent.actor,
        ip: intent.ip,
        action: intent.action,
        target: { type: intent.target_type, id: intent.target_id },
        before: new MaskedValue(intent.before),
        after,
        details: { outcome: "unknown: the instance stopped before recording it; after is the target as found later" },
      });
      return 1;
    });
  }
  return recorded;
}

export function startAuditRecovery(services: Services): Promise<void> {
  return recoverySchedule.start(services);
}

/** Sweeps, then books the next sweep. */
export async function runAuditRecovery(services: Services): Promise<number> {
  const recorded = await recoverAuditIntents(services);
  await recoverySchedule.bookNext(services);
  return recorded;
}
