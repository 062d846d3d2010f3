import type { Request } from "express";
import { z } from "zod";
import { actorOf, recordAudit } from "../audit/record.js";
import type { Services } from "../services.js";
import { runOperation } from "./execute.js";
import { exportFormatOf, streamExport } from "./export-stream.js";
import {
  type AuditRecordFieldsFragment,
  ExportAuditRecordsDocument,
  ListAuditRecordsDocument,
  VerifyAuditTrailDocument,
} from "./generated.js";
import { pagingQuery, queryVariable, type RestRoute, textVariable } from "./route.js";

const AuditRecordBody = z.object({
  id: z.string(),
  seq: z.number().int(),
  created_at: z.string(),
  actor_kind: z.enum(["apiKey", "user", "system", "anonymous"]),
  actor_id: z.string().nullable(),
  actor_label: z.string().nullable().describe("the API key's prefix or the user's e-mail"),
  actor_role: z.string().nullable(),
  ip: z.string().nullable(),
  action: z.string(),
  target_type: z.string().nullable(),
  target_id: z.string().nullable(),
  before: z.unknown().nullable(),
  after: z.unknown().nullable(),
  details: z.unknown().nullable(),
  prev_hash: z.string(),
  hash: z.string(),
});

const columns = Object.keys(AuditRecordBody.shape);

const record = (r: AuditRecordFieldsFragment) => ({
  id: r.id,
  seq: r.seq,
  created_at: r.createdAt,
  actor_kind: r.actor.kind,
  actor_id: r.actor.id,
  actor_label: r.actor.label,
  actor_role: r.actor.role,
  ip: r.ip,
  action: r.action,
  target_type: r.targetType,
  target_id: r.targetId,
  before: r.before,
  after: r.after,
  details: r.details,
  prev_hash: r.prevHash,
  hash: r.hash,
});

const filterQuery = {
  action: z.string().optional().describe("e.g. channel.save; a prefix ending in a dot (login.) matches every verb"),
  actor_id: z.string().optional(),
  target_type: z.string().optional(),
  target_id: z.string().optional(),
  from: z.string().optional().describe("at or after (ISO 8601)"),
  to: z.string().optional().describe("before (ISO 8601)"),
};

function filters(req: Request) {
  const q = req.query;
  return {
    action: textVariable(q.action),
    actorId: textVariable(q.actor_id),
    targetType: textVariable(q.target_type),
    targetId: textVariable(q.target_id),
    from: textVariable(q.from),
    to: textVariable(q.to),
  };
}

export function auditRoutes(services: Services): RestRoute[] {
  return [
    {
      method: "get",
      path: "/api/audit",
      tag: "Audit",
      summary: "The tenant's audit trail, newest first (owners and admins)",
      query: z.object({ ...pagingQuery, ...filterQuery }),
      response: {
        status: 200,
        description: "A page of records",
        schema: z.object({ records: z.array(AuditRecordBody), total: z.number(), page: z.number(), limit: z.number() }),
      },
      errors: [401, 403, 422, 429],
      async handle(req) {
        const { auditRecords } = await runOperation(services, req, ListAuditRecordsDocument, {
          page: queryVariable(req.query.page) as number,
          limit: queryVariable(req.query.limit) as number,
          ...filters(req),
        });
        return {
          records: auditRecords.items.map(record),
          total: auditRecords.total,
          page: auditRecords.page,
          limit: auditRecords.limit,
        };
      },
    },
    {
      method: "get",
      path: "/api/audit/export",
      tag: "Audit",
      summary:
        "Every record matching the filters, oldest first, streamed as a JSON array or CSV (`format=json|csv`); the export itself is recorded",
      query: z.object({ format: z.enum(["json", "csv"]).optional(), ...filterQuery }),
      response: { status: 200, description: "The records, as a download" },
      errors: [401, 403, 422, 429],
      async handle(req, res) {
        const format = exportFormatOf(req.query.format);
        const variables = { ...filters(req), limit: 100 };
        const pageAfter = async (afterSeq: number) =>
          (await runOperation(services, req, ExportAuditRecordsDocument, { ...variables, afterSeq })).auditRecords.items;
        // The first page proves the caller may export before the export is recorded and the download starts.
        const first = await pageAfter(0);
        await recordAudit(services, {
          tenantId: req.principal!.tenantId,
          actor: actorOf(req.principal!),
          ip: req.ip,
          action: "audit.export",
          details: { format, filters: filters(req) },
        });
        async function* pages() {
          let items = first;
          while (items.length) {
            yield items.map(record);
            if (items.length < variables.limit) return;
            items = await pageAfter(items.at(-1)!.seq);
          }
        }
        await streamExport(res, format, "audit-trail", columns, pages());
      },
    },
    {
      method: "get",
      path: "/api/audit/verify",
      tag: "Audit",
      summary: "Recomputes the tenant's hash chain and names the first record where it breaks",
      response: {
        status: 200,
        description: "The verification",
        schema: z.object({
          ok: z.boolean(),
          checked: z.number().int(),
          last_seq: z.number().int().nullable(),
          last_hash: z.string().nullable(),
          broken: z.object({ id: z.string(), seq: z.number().int(), reason: z.string() }).nullable(),
          anchor: z
            .object({ seq: z.number().int(), hash: z.string() })
            .nullable()
            .describe("the last record retention removed, where verification started; null: from the first"),
        }),
      },
      errors: [401, 403, 429],
      async handle(req) {
        const { verifyAuditTrail: v } = await runOperation(services, req, VerifyAuditTrailDocument, {});
        return { ok: v.ok, checked: v.checked, last_seq: v.lastSeq, last_hash: v.lastHash, broken: v.broken, anchor: v.anchor };
      },
    },
  ];
}
