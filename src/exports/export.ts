import { z } from "zod";
import { type ConversationFilter, conversationWhere, withConversationFilter } from "../conversations/filter.js";
import type { TenantDb } from "../db/tenant-scope.js";
import { notFound } from "../errors.js";
import { parseInput } from "../graphql/validate.js";
import { type ExportFormat, exportFormats, writeTranscripts } from "./formats.js";
import { transcriptPages } from "./transcripts.js";

/** Text from a query string or a command line as a date, when it is one; anything else is left for zod to refuse. */
const isoDate = (value: unknown) =>
  typeof value === "string" && /^\d{4}-\d{2}-\d{2}/.test(value) && !Number.isNaN(Date.parse(value)) ? new Date(value) : value;

const exportInput = withConversationFilter({ format: z.enum(exportFormats).default("json") });

/** What to export: `format`, and the conversation list's filters (`status`, `channel`, `from`, `to`, `q`). */
export function parseExportRequest(input: Record<string, unknown>): ConversationFilter & { format: ExportFormat } {
  return parseInput(exportInput, { ...input, from: isoDate(input.from), to: isoDate(input.to) });
}

export interface TranscriptExport {
  format: ExportFormat;
  /** A file name for the download, e.g. `transcripts-20261125T143000Z.csv`. */
  fileName: string;
  body: AsyncGenerator<string>;
}

const stamp = () => new Date().toISOString().replace(/[-:]|\.\d+/g, "");

/** The transcripts of the tenant's conversations a filter selects, oldest first (README, Transcript export). */
export function exportConversations(db: TenantDb, request: ConversationFilter & { format: ExportFormat }): TranscriptExport {
  const { format, ...filter } = request;
  return {
    format,
    fileName: `transcripts-${stamp()}.${format}`,
    body: writeTranscripts(transcriptPages(db, conversationWhere(filter)), format),
  };
}

/** One conversation's transcript; NOT_FOUND (before anything is written) when the tenant has no such conversation. */
export async function exportConversation(db: TenantDb, id: string, format: ExportFormat): Promise<TranscriptExport> {
  if (!(await db.conversation.findUnique({ select: { id: true }, where: { id } }))) throw notFound("Conversation");
  return {
    format,
    fileName: `transcript-${id}-${stamp()}.${format}`,
    body: writeTranscripts(transcriptPages(db, { id }), format),
  };
}
