import type { Principal } from "../auth/principal.js";
import { lockTenantFor } from "../db/advisory-lock.js";
import type { Prisma } from "../db/generated/prisma/client.js";
import { newId } from "../db/ids.js";
import type { Services } from "../services.js";
import { type ChainedFields, genesisHash, recordHash } from "./chain.js";

/** Who made a change: a key or a user of the tenant, the service itself, or someone unknown (a failed login). */
export interface AuditActor {
  kind: "apiKey" | "user" | "system" | "anonymous";
  id?: string | null;
  /** The API key's prefix or the user's e-mail. */
  label?: string | null;
  role?: string | null;
}

export interface AuditEntry {
  tenantId: string;
  actor: AuditActor;
  /** The client's address. */
  ip?: string | null;
  /** What was done, `<thing>.<verb>`: `channel.save`, `apiKey.revoke`, `login.failed`. */
  action: string;
  target?: { type: string; id: string | null } | null;
  before?: unknown;
  after?: unknown;
  details?: unknown;
}

export function actorOf(principal: Principal): AuditActor {
  return { kind: principal.kind, id: principal.id, label: principal.label ?? null, role: principal.role };
}

/** What appending needs of a transaction: plain or tenant-scoped alike. */
export type AuditTx = Pick<Prisma.TransactionClient, "$queryRaw" | "$executeRaw">;

// Keys whose values are secrets wherever they appear: channel credentials, password hashes, signing secrets.
const secretKey = /(secret|token|password|passwordhash|hash|api_?key)$/i;

/** A value masked already (an audit intent's `before`): stored as it is, not fingerprinted twice. */
export class MaskedValue {
  constructor(readonly value: unknown) {}
}

/**
 * The value as it is stored in a record: plain JSON (dates as ISO text), every secret replaced by its keyed
 * fingerprint, so that a record shows that a secret changed, never what it is.
 */
export function maskSecrets(value: unknown, fingerprint: (secret: string) => string): unknown {
  if (value instanceof MaskedValue) return value.value ?? null;
  const plain = value === undefined ? null : JSON.parse(JSON.stringify(value));
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (v === null || typeof v !== "object") return v;
    return Object.fromEntries(
      Object.entries(v as Record<string, unknown>).map(([k, inner]) => [
        k,
        secretKey.test(k) && typeof inner === "string" && inner !== "" ? `[secret ${fingerprint(inner)}]` : walk(inner),
      ]),
    );
  };
  return walk(plain);
}

/**
 * Appends a record to the tenant's chain within the caller's transaction. The tenant's audit lock is held until
 * that transaction ends, so two writers cannot both chain onto the same record (the unique (tenant, seq) index
 * is the backstop). The hash is computed here, over exactly what is stored.
 */
export async function appendAudit(
  tx: AuditTx,
  fingerprint: (secret: string) => string,
  entry: AuditEntry,
): Promise<{ id: string; seq: number; hash: string }> {
  await lockTenantFor(tx, "audit", entry.tenantId);
  const [last] = await tx.$queryRaw<Array<{ seq: number; hash: string }>>`
    SELECT seq, hash FROM audit_records WHERE tenant_id = ${entry.tenantId} ORDER BY seq DESC LIMIT 1`;
  const fields: ChainedFields = {
    id: newId("aud"),
    tenantId: entry.tenantId,
    seq: (last?.seq ?? 0) + 1,
    createdAt: new Date().toISOString(),
    actorKind: entry.actor.kind,
    actorId: entry.actor.id ?? null,
    actorLabel: entry.actor.label ?? null,
    actorRole: entry.actor.role ?? null,
    ip: entry.ip || null,
    action: entry.action,
    targetType: entry.target?.type ?? null,
    targetId: entry.target?.id ?? null,
    before: maskSecrets(entry.before, fingerprint),
    after: maskSecrets(entry.after, fingerprint),
    details: maskSecrets(entry.details, fingerprint),
    prevHash: last?.hash ?? genesisHash,
  };
  const hash = recordHash(fields);
  const json = (v: unknown) => (v === null ? null : JSON.stringify(v));
  await tx.$executeRaw`
    INSERT INTO audit_records (id, tenant_id, seq, created_at, actor_kind, actor_id, actor_label, actor_role, ip, action,
                               target_type, target_id, before, after, details, prev_hash, hash)
    VALUES (${fields.id}, ${fields.tenantId}, ${fields.seq}, ${fields.createdAt}::timestamptz, ${fields.actorKind},
            ${fields.actorId}, ${fields.actorLabel}, ${fields.actorRole}, ${fields.ip}, ${fields.action}, ${fields.targetType},
            ${fields.targetId}, ${json(fields.before)}::jsonb, ${json(fields.after)}::jsonb, ${json(fields.details)}::jsonb,
            ${fields.prevHash}, ${hash})`;
  return { id: fields.id, seq: fields.seq, hash };
}

/**
 * Appends a record in a transaction of its own (a change already committed, a login), and removes the change's
 * audit intent (src/audit/intents.ts) in the same transaction when it had one.
 */
export async function recordAudit(services: Pick<Services, "db" | "secrets">, entry: AuditEntry, intentId?: string) {
  return services.db.prisma.$transaction(async (tx) => {
    if (intentId) await tx.$executeRaw`DELETE FROM audit_intents WHERE id = ${intentId}`;
    return appendAudit(tx, (s) => services.secrets.fingerprint(s), entry);
  });
}
