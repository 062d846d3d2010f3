import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Request, Response } from "express";
import { z } from "zod";
import { actorOf, recordAudit } from "../audit/record.js";
import { permits } from "../auth/principal.js";
import { scopeToTenant } from "../db/tenant-scope.js";
import { AppError } from "../errors.js";
import { exportConversation, exportConversations, parseExportRequest, type TranscriptExport } from "../exports/export.js";
import { contentTypes, csvColumns } from "../exports/formats.js";
import type { Services } from "../services.js";
import type { RestRoute } from "./route.js";

const formatQuery = z
  .enum(["json", "csv"])
  .optional()
  .describe("json (default): an array of conversations; csv: one row per record");

const Transcript = z.object({
  id: z.string(),
  channel: z.string(),
  status: z.string(),
  customer: z.object({ phone: z.string().nullable(), id: z.string().nullable(), name: z.string().nullable() }),
  message_count: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
  messages: z.array(
    z.object({
      id: z.string(),
      role: z.string(),
      content: z.string(),
      created_at: z.string(),
      intent: z.string().nullable(),
      confidence: z.number().nullable(),
      agent_type: z.string().nullable(),
      tokens_used: z.number().nullable(),
      sources: z.array(
        z.object({
          source_id: z.string().nullable(),
          title: z.string().nullable(),
          url: z.string().nullable(),
          score: z.number().nullable(),
        }),
      ),
      agent: z.object({ id: z.string(), name: z.string().nullable() }).nullable(),
      delivery: z.object({ status: z.string(), attempts: z.number().int(), error: z.string().nullable() }).nullable(),
    }),
  ),
  timeline: z.array(
    z.object({
      id: z.string(),
      type: z.string(),
      from: z.string().nullable(),
      to: z.string().nullable(),
      actor: z.string(),
      reason: z.string().nullable(),
      at: z.string(),
    }),
  ),
  handoffs: z.array(
    z.object({
      id: z.string(),
      reason: z.string(),
      priority: z.string(),
      status: z.string(),
      team: z.string().nullable(),
      assignee: z.string().nullable(),
      note: z.string().nullable(),
      created_by: z.string(),
      created_at: z.string(),
      assigned_at: z.string().nullable(),
      first_response_at: z.string().nullable(),
      resolved_at: z.string().nullable(),
    }),
  ),
});

const media = {
  "application/json": z.array(Transcript),
  "text/csv": z.string().describe(`RFC 4180 with a header row: ${csvColumns.join(", ")}`),
};

/** The caller's tenant, for an admin or owner: bulk transcripts are every customer's words at once. */
function exporterDb(services: Services, req: Request) {
  if (!permits(req.principal ?? null, "export")) {
    throw new AppError("FORBIDDEN", `The ${req.principal?.role} role may not export transcripts: an admin or owner may`);
  }
  return scopeToTenant(services.db.prisma, req.principal!.tenantId);
}

/** The one place an export is reported (who, what; never the content): the log and the tenant's audit trail. */
async function exportStarted(services: Services, req: Request, what: Record<string, unknown>): Promise<void> {
  const principal = req.principal!;
  services.logger.info({ tenantId: principal.tenantId, by: principal.id, kind: principal.kind, ...what }, "transcript export");
  await recordAudit(services, {
    tenantId: principal.tenantId,
    actor: actorOf(principal),
    ip: req.ip,
    action: "transcript.export",
    details: what,
  });
}

/**
 * Streams an export to the response: written as it is read, at the pace the client reads it (backpressure), and
 * stopped when the client goes away. A failure after the first byte can only cut the response short: the client
 * sees an incomplete body (a JSON array never closed, a chunked response never ended), never a false success.
 */
async function send(services: Services, res: Response, transcript: TranscriptExport): Promise<void> {
  // The first piece is read before the answer starts, so that a failure there is still a JSON error.
  const first = await transcript.body.next();
  async function* body() {
    if (!first.done) yield first.value;
    yield* transcript.body;
  }
  res.status(200);
  res.setHeader("content-type", contentTypes[transcript.format]);
  res.setHeader("content-disposition", `attachment; filename="${transcript.fileName}"`);
  res.setHeader("cache-control", "no-store");
  try {
    await pipeline(Readable.from(body()), res);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ERR_STREAM_PREMATURE_CLOSE") {
      services.logger.error({ err }, "transcript export failed midway");
    }
  }
}

/** Transcript export (README): a conversation, or all that match the list's filters, as JSON or CSV. */
export function exportRoutes(services: Services): RestRoute[] {
  return [
    {
      method: "get",
      path: "/api/conversations/export",
      tag: "Conversations",
      summary:
        "Export the transcripts of every conversation matching the filters, oldest first, streamed: messages with " +
        "their intents and sources cited, the timeline and the hand-offs (admins and owners)",
      query: z.object({
        format: formatQuery,
        status: z.enum(["open", "escalated", "assigned", "resolved", "closed"]).optional(),
        channel: z.string().optional(),
        from: z.string().optional().describe("created at or after (ISO 8601)"),
        to: z.string().optional().describe("created at or before (ISO 8601)"),
        q: z.string().optional().describe("customer phone, name or id, or message text"),
      }),
      response: { status: 200, description: "The transcripts, as an attachment", media },
      errors: [401, 403, 422, 429],
      async handle(req, res) {
        const db = exporterDb(services, req);
        const request = parseExportRequest(req.query);
        await exportStarted(services, req, { ...request });
        await send(services, res, exportConversations(db, request));
      },
    },
    {
      method: "get",
      path: "/api/conversations/:id/export",
      tag: "Conversations",
      summary: "Export one conversation's transcript (a JSON array of one, or CSV), streamed (admins and owners)",
      query: z.object({ format: formatQuery }),
      response: { status: 200, description: "The transcript, as an attachment", media },
      errors: [401, 403, 404, 422, 429],
      async handle(req, res) {
        const db = exporterDb(services, req);
        const { format } = parseExportRequest({ format: req.query.format });
        const transcript = await exportConversation(db, String(req.params.id), format);
        await exportStarted(services, req, { format, conversationId: req.params.id });
        await send(services, res, transcript);
      },
    },
  ];
}
