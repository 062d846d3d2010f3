import { pruneAuditRecords } from "../audit/prune.js";
import { recordAudit } from "../audit/record.js";
import type { Services } from "../services.js";
import { heldConversationSql } from "./holds.js";
import { type DataClass, type RetentionPeriods, retentionOf } from "./periods.js";

// Rows per statement: each batch is one short transaction, and memory stays the same whatever the backlog.
const batchSize = 500;

type Sql = Services["db"]["sql"];

/** Runs a counting batch statement until a batch comes back short; returns the sums of its columns. */
async function inBatches<K extends string>(sql: Sql, statement: string, params: unknown[], columns: K[]) {
  const total = Object.fromEntries(columns.map((c) => [c, 0])) as Record<K, number>;
  for (;;) {
    const [row] = await sql.query<Record<K, number | string>>(statement, [...params, batchSize]);
    for (const c of columns) total[c] += Number(row?.[c] ?? 0);
    if (Number(row?.[columns[0]!] ?? 0) < batchSize) return total;
  }
}

async function countHeld(sql: Sql, tenantId: string, cutoff: Date, extra = ""): Promise<number> {
  const [row] = await sql.query<{ n: number | string }>(
    `SELECT count(*) AS n FROM conversations c WHERE c.tenant_id = $1 AND c.updated_at < $2 ${extra} AND ${heldConversationSql}`,
    [tenantId, cutoff],
  );
  return Number(row?.n ?? 0);
}

/** Conversations whose last activity is older than the cutoff, with everything in them; held ones are kept. */
async function expireTranscripts(sql: Sql, tenantId: string, cutoff: Date) {
  const removed = await inBatches(
    sql,
    `WITH doomed AS (
       SELECT c.id FROM conversations c
        WHERE c.tenant_id = $1 AND c.updated_at < $2 AND NOT ${heldConversationSql}
        ORDER BY c.updated_at LIMIT $3 FOR UPDATE OF c SKIP LOCKED),
     counted AS (SELECT count(*) AS n FROM messages WHERE conversation_id IN (SELECT id FROM doomed)),
     gone AS (DELETE FROM conversations WHERE id IN (SELECT id FROM doomed) RETURNING id)
     SELECT (SELECT count(*) FROM gone) AS conversations, (SELECT n FROM counted) AS messages`,
    [tenantId, cutoff],
    ["conversations", "messages"],
  );
  return { ...removed, heldBack: await countHeld(sql, tenantId, cutoff) };
}

const hasIdentity = "AND (c.customer_phone IS NOT NULL OR c.customer_id IS NOT NULL OR c.customer_name IS NOT NULL)";

/** The customer's phone number, channel id and name, removed from conversations older than the cutoff. */
async function expireIdentities(sql: Sql, tenantId: string, cutoff: Date) {
  const { conversations } = await inBatches(
    sql,
    `WITH doomed AS (
       SELECT c.id FROM conversations c
        WHERE c.tenant_id = $1 AND c.updated_at < $2 ${hasIdentity} AND NOT ${heldConversationSql}
        ORDER BY c.updated_at LIMIT $3 FOR UPDATE OF c SKIP LOCKED),
     gone AS (UPDATE conversations SET customer_phone = NULL, customer_id = NULL, customer_name = NULL
               WHERE id IN (SELECT id FROM doomed) RETURNING id)
     SELECT count(*) AS conversations FROM gone`,
    [tenantId, cutoff],
    ["conversations"],
  );
  return { conversations, heldBack: await countHeld(sql, tenantId, cutoff, hasIdentity) };
}

/** The service's finished job records (they carry the provider's payloads: texts, sender ids). */
async function expireJobs(sql: Sql, tenantId: string, cutoff: Date) {
  const { jobs } = await inBatches(
    sql,
    `WITH gone AS (
       DELETE FROM jobs WHERE id IN (
         SELECT id FROM jobs WHERE tenant_id = $1 AND status IN ('completed', 'dead') AND updated_at < $2
          LIMIT $3 FOR UPDATE SKIP LOCKED) RETURNING id)
     SELECT count(*) AS jobs FROM gone`,
    [tenantId, cutoff],
    ["jobs"],
  );
  return jobs;
}

/** Uploaded files (PDFs) synced last before the cutoff: their indexed text stays, so the knowledge base still answers. */
async function expireKnowledgeFiles(sql: Sql, tenantId: string, cutoff: Date) {
  return inBatches(
    sql,
    `WITH gone AS (
       UPDATE knowledge_sources SET file_data = NULL WHERE id IN (
         SELECT id FROM knowledge_sources
          WHERE tenant_id = $1 AND file_data IS NOT NULL AND status IN ('ready', 'failed')
            AND coalesce(last_synced_at, created_at) < $2
          LIMIT $3 FOR UPDATE SKIP LOCKED) RETURNING id)
     SELECT count(*) AS files FROM gone`,
    [tenantId, cutoff],
    ["files"],
  );
}

/** Event notifications made before the cutoff, with their delivery logs. */
async function expireDeliveryLogs(sql: Sql, tenantId: string, cutoff: Date) {
  return inBatches(
    sql,
    `WITH doomed AS (
       SELECT id FROM webhook_events WHERE tenant_id = $1 AND created_at < $2
        ORDER BY created_at LIMIT $3 FOR UPDATE SKIP LOCKED),
     counted AS (SELECT count(*) AS n FROM webhook_deliveries WHERE event_id IN (SELECT id FROM doomed)),
     gone AS (DELETE FROM webhook_events WHERE id IN (SELECT id FROM doomed) RETURNING id)
     SELECT (SELECT count(*) FROM gone) AS events, (SELECT n FROM counted) AS deliveries`,
    [tenantId, cutoff],
    ["events", "deliveries"],
  );
}

const dayMs = 86_400_000;

function cutoffs(periods: RetentionPeriods, now: number): Partial<Record<DataClass, Date>> {
  return Object.fromEntries(
    Object.entries(periods)
      .filter(([, days]) => days !== null)
      .map(([c, days]) => [c, new Date(now - (days as number) * dayMs)]),
  );
}

/** What one run removed per data class (counts only), and what holds kept. */
export interface RetentionRun {
  messages?: { conversations: number; messages: number; heldBack: number };
  identities?: { conversations: number; heldBack: number };
  jobs?: number;
  knowledgeFiles?: { files: number };
  deliveryLogs?: { events: number; deliveries: number };
  auditRecords?: { records: number; anchor: { seq: number; sha256: string } | null };
}

/**
 * Applies the tenant's retention periods once: each class with a period loses what is older than it, in short
 * batches, except what a legal hold covers. The run is audited with its counts (never content). Safe to run twice
 * at once: each batch claims its rows (SKIP LOCKED), so nothing is counted twice.
 */
export async function enforceRetention(services: Services, tenantId: string, now = Date.now()): Promise<RetentionRun | null> {
  const { db, logger } = services;
  const tenant = await db.prisma.tenant.findUnique({ where: { id: tenantId }, select: { settings: true } });
  if (!tenant) return null;
  const periods = retentionOf(tenant.settings);
  const cut = cutoffs(periods, now);
  if (!Object.keys(cut).length) return null;
  const run: RetentionRun = {};
  if (cut.messages) run.messages = await expireTranscripts(db.sql, tenantId, cut.messages);
  if (cut.identities) run.identities = await expireIdentities(db.sql, tenantId, cut.identities);
  const jobsCutoff = [cut.messages, cut.identities].filter((d): d is Date => d !== undefined).sort((a, b) => +b - +a)[0];
  if (jobsCutoff) run.jobs = await expireJobs(db.sql, tenantId, jobsCutoff);
  if (cut.knowledgeFiles) run.knowledgeFiles = await expireKnowledgeFiles(db.sql, tenantId, cut.knowledgeFiles);
  if (cut.deliveryLogs) run.deliveryLogs = await expireDeliveryLogs(db.sql, tenantId, cut.deliveryLogs);
  if (cut.auditRecords) {
    const { records, anchor } = await pruneAuditRecords(services, tenantId, cut.auditRecords);
    run.auditRecords = { records, anchor: anchor && { seq: anchor.seq, sha256: anchor.hash } };
  }
  await recordAudit(services, {
    tenantId,
    actor: { kind: "system", label: "retention" },
    action: "retention.run",
    target: { type: "tenant", id: tenantId },
    details: { periods, removed: run },
  });
  logger.info({ tenantId, removed: run }, "retention applied");
  return run;
}
