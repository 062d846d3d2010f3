import { csvRow } from "./csv.js";
import type { Handoff, TimelineEvent, TranscriptConversation, TranscriptMessage, TranscriptPage } from "./transcripts.js";

export const exportFormats = ["json", "csv"] as const;
export type ExportFormat = (typeof exportFormats)[number];

export const contentTypes: Record<ExportFormat, string> = {
  json: "application/json; charset=utf-8",
  csv: "text/csv; charset=utf-8; header=present",
};

// Writes go out in pieces of about this size: one socket write per piece, not one per message.
const chunkBytes = 64 * 1024;

function conversationJson(c: TranscriptConversation) {
  return {
    id: c.id,
    channel: c.channel,
    status: c.status,
    customer: { phone: c.customerPhone, id: c.customerId, name: c.customerName },
    message_count: c.messageCount,
    created_at: c.createdAt,
    updated_at: c.updatedAt,
  };
}

const timelineJson = (e: TimelineEvent) => ({
  id: e.id,
  type: e.type,
  from: e.fromStatus,
  to: e.toStatus,
  actor: e.actor,
  reason: e.reason,
  at: e.createdAt,
});

const handoffJson = (h: Handoff) => ({
  id: h.id,
  reason: h.reason,
  priority: h.priority,
  status: h.status,
  team: h.team?.name ?? null,
  assignee: h.assignee?.name ?? null,
  note: h.note,
  created_by: h.createdBy,
  created_at: h.createdAt,
  assigned_at: h.assignedAt,
  first_response_at: h.firstResponseAt,
  resolved_at: h.resolvedAt,
});

/** The items of pages as the inside of a JSON array: one piece per page. */
async function* jsonItems<T>(pages: AsyncIterable<T[]>, shape: (item: T) => unknown): AsyncGenerator<string> {
  let separator = "";
  for await (const page of pages) {
    if (!page.length) continue;
    yield `${separator}${page.map((item) => JSON.stringify(shape(item))).join(",")}`;
    separator = ",";
  }
}

const messageJson = (m: TranscriptMessage) => ({
  id: m.id,
  role: m.role,
  content: m.content,
  created_at: m.createdAt,
  intent: m.intent,
  confidence: m.confidence,
  agent_type: m.agentType,
  tokens_used: m.tokensUsed,
  sources: m.sources,
  agent: m.agent,
  delivery: m.delivery,
});

/**
 * A JSON array of conversations, each with its messages, timeline and hand-offs, written as it is read: the
 * conversation's fields first, then its messages one by one, so that no conversation is ever whole in memory.
 */
async function* jsonTranscripts(pages: AsyncIterable<TranscriptPage>): AsyncGenerator<string> {
  yield "[";
  let separator = "\n";
  for await (const page of pages) {
    for (const conversation of page.conversations) {
      const head = JSON.stringify(conversationJson(conversation));
      yield `${separator}${head.slice(0, -1)},"messages":[`;
      yield* jsonItems(page.messages.of(conversation.id), messageJson);
      yield `],"timeline":[`;
      yield* jsonItems(page.timeline.of(conversation.id), timelineJson);
      yield `],"handoffs":[`;
      yield* jsonItems(page.handoffs.of(conversation.id), handoffJson);
      yield "]}";
      separator = ",\n";
    }
  }
  yield "\n]\n";
}

const conversationColumns = [
  "conversation_id",
  "channel",
  "conversation_status",
  "customer_phone",
  "customer_id",
  "customer_name",
  "conversation_created_at",
] as const;
const recordColumns = [
  "record",
  "record_id",
  "at",
  "actor",
  "content",
  "intent",
  "confidence",
  "sources",
  "delivery_status",
  "from_status",
  "to_status",
  "reason",
  "priority",
  "team",
  "agent",
] as const;
export const csvColumns = [...conversationColumns, ...recordColumns];

/** A message, status change, assignment or hand-off as the record columns of its row, and when it happened. */
type CsvRecord = { at: Date; line: string };

interface RecordCells {
  record: string;
  recordId: string;
  at: Date;
  actor: string | null;
  content?: string | null;
  intent?: string | null;
  confidence?: number | null;
  sources?: string | null;
  deliveryStatus?: string | null;
  fromStatus?: string | null;
  toStatus?: string | null;
  reason?: string | null;
  priority?: string | null;
  team?: string | null;
  agent?: string | null;
}

/** The record columns in `recordColumns` order, CRLF-terminated. */
function csvRecord(r: RecordCells): CsvRecord {
  const line = csvRow([
    r.record,
    r.recordId,
    r.at.toISOString(),
    r.actor,
    r.content,
    r.intent,
    r.confidence,
    r.sources,
    r.deliveryStatus,
    r.fromStatus,
    r.toStatus,
    r.reason,
    r.priority,
    r.team,
    r.agent,
  ]);
  return { at: r.at, line };
}

const iso = (date: Date | null) => date?.toISOString() ?? null;

const messageRecord = (m: TranscriptMessage) =>
  csvRecord({
    record: "message",
    recordId: m.id,
    at: m.createdAt,
    actor: m.role,
    content: m.content,
    intent: m.intent,
    confidence: m.confidence,
    sources: m.sources.map((s) => [s.title, s.url].filter(Boolean).join(" ")).join(" | ") || null,
    deliveryStatus: m.delivery?.status ?? null,
    agent: m.agent?.name ?? m.agent?.id ?? null,
  });

const eventRecord = (e: TimelineEvent) =>
  csvRecord({
    record: e.type,
    recordId: e.id,
    at: e.createdAt,
    actor: e.actor,
    fromStatus: e.fromStatus,
    toStatus: e.toStatus,
    reason: e.reason,
  });

const handoffRecord = (h: Handoff) =>
  csvRecord({
    record: "handoff",
    recordId: h.id,
    at: h.createdAt,
    actor: h.createdBy,
    content: h.note,
    toStatus: h.status,
    reason: h.reason,
    priority: h.priority,
    team: h.team?.name ?? null,
    agent: h.assignee?.name ?? null,
  });

/** A position in a stream of pages as CSV records: the current one without waiting, the next page read when due. */
class PageCursor {
  private page: CsvRecord[] = [];
  private index = 0;
  private ended = false;

  constructor(private readonly pages: AsyncIterator<CsvRecord[]>) {}

  get current(): CsvRecord | undefined {
    return this.page[this.index];
  }

  get due(): boolean {
    return !this.ended && this.index >= this.page.length;
  }

  advance(): void {
    this.index++;
  }

  async fill(): Promise<void> {
    while (this.due) {
      const next = await this.pages.next();
      if (next.done) this.ended = true;
      else [this.page, this.index] = [next.value, 0];
    }
  }
}

async function* recordPages<T>(pages: AsyncIterable<T[]>, shape: (item: T) => CsvRecord): AsyncGenerator<CsvRecord[]> {
  for await (const page of pages) yield page.map(shape);
}

const cursorOf = <T>(pages: AsyncIterable<T[]>, shape: (item: T) => CsvRecord) =>
  new PageCursor(recordPages(pages, shape)[Symbol.asyncIterator]());

/** One conversation's rows: its messages, timeline and hand-offs merged by time (ties: in that order). */
async function* csvConversation(page: TranscriptPage, c: TranscriptConversation): AsyncGenerator<string> {
  // The conversation's columns, the same on each of its rows.
  const prefix = csvRow([c.id, c.channel, c.status, c.customerPhone, c.customerId, c.customerName, iso(c.createdAt)]).slice(
    0,
    -2,
  );
  const cursors = [
    cursorOf(page.messages.of(c.id), messageRecord),
    cursorOf(page.timeline.of(c.id), eventRecord),
    cursorOf(page.handoffs.of(c.id), handoffRecord),
  ];
  let out = "";
  for (;;) {
    for (const cursor of cursors) if (cursor.due) await cursor.fill();
    let from: PageCursor | undefined;
    for (const cursor of cursors) {
      const record = cursor.current;
      if (record && (!from || record.at < from.current!.at)) from = cursor;
    }
    if (!from) break;
    out += `${prefix},${from.current!.line}`;
    from.advance();
    if (out.length >= chunkBytes) {
      yield out;
      out = "";
    }
  }
  if (out) yield out;
}

/** One row per message, status change, assignment and hand-off, each conversation's in the order they happened. */
async function* csvTranscripts(pages: AsyncIterable<TranscriptPage>): AsyncGenerator<string> {
  // A byte order mark, so that spreadsheets read the file as UTF-8.
  yield `\uFEFF${csvRow(csvColumns)}`;
  for await (const page of pages) {
    for (const c of page.conversations) yield* csvConversation(page, c);
  }
}

/** Small strings gathered into pieces of about `chunkBytes`, so that the response is written in few large writes. */
async function* inChunks(pieces: AsyncIterable<string>): AsyncGenerator<string> {
  let buffer = "";
  for await (const piece of pieces) {
    buffer += piece;
    if (buffer.length >= chunkBytes) {
      yield buffer;
      buffer = "";
    }
  }
  if (buffer) yield buffer;
}

/** The transcripts of the pages' conversations in `format`, as text pieces to write as they come. */
export function writeTranscripts(pages: AsyncIterable<TranscriptPage>, format: ExportFormat): AsyncGenerator<string> {
  return inChunks(format === "csv" ? csvTranscripts(pages) : jsonTranscripts(pages));
}
