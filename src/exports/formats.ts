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

async function* jsonArray<T>(items: AsyncIterable<T>, shape: (item: T) => unknown = (item) => item): AsyncGenerator<string> {
  let separator = "";
  for await (const item of items) {
    yield `${separator}${JSON.stringify(shape(item))}`;
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
      yield* jsonArray(page.messages.of(conversation.id), messageJson);
      yield `],"timeline":[`;
      yield* jsonArray(page.timeline.of(conversation.id), timelineJson);
      yield `],"handoffs":[`;
      yield* jsonArray(page.handoffs.of(conversation.id), handoffJson);
      yield "]}";
      separator = ",\n";
    }
  }
  yield "\n]\n";
}

export const csvColumns = [
  "conversation_id",
  "channel",
  "conversation_status",
  "customer_phone",
  "customer_id",
  "customer_name",
  "conversation_created_at",
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
type CsvRecord = { at: Date; cells: Partial<Record<(typeof csvColumns)[number], string | number | null>> };

const iso = (date: Date | null) => date?.toISOString() ?? null;

function messageRecord(m: TranscriptMessage): CsvRecord {
  return {
    at: m.createdAt,
    cells: {
      record: "message",
      record_id: m.id,
      actor: m.role,
      content: m.content,
      intent: m.intent,
      confidence: m.confidence,
      sources: m.sources.map((s) => [s.title, s.url].filter(Boolean).join(" ")).join(" | ") || null,
      delivery_status: m.delivery?.status ?? null,
      agent: m.agent?.name ?? m.agent?.id ?? null,
    },
  };
}

function eventRecord(e: TimelineEvent): CsvRecord {
  return {
    at: e.createdAt,
    cells: {
      record: e.type,
      record_id: e.id,
      actor: e.actor,
      from_status: e.fromStatus,
      to_status: e.toStatus,
      reason: e.reason,
    },
  };
}

function handoffRecord(h: Handoff): CsvRecord {
  return {
    at: h.createdAt,
    cells: {
      record: "handoff",
      record_id: h.id,
      actor: h.createdBy,
      content: h.note,
      to_status: h.status,
      reason: h.reason,
      priority: h.priority,
      team: h.team?.name ?? null,
      agent: h.assignee?.name ?? null,
    },
  };
}

async function* mapped<T, U>(items: AsyncIterable<T>, shape: (item: T) => U): AsyncGenerator<U> {
  for await (const item of items) yield shape(item);
}

/** Sorted streams merged into one, by time (ties: the earlier stream first). */
async function* mergeByTime(sources: AsyncIterable<CsvRecord>[]): AsyncGenerator<CsvRecord> {
  const iterators = sources.map((source) => source[Symbol.asyncIterator]());
  const heads = await Promise.all(iterators.map((iterator) => iterator.next()));
  for (;;) {
    let pick = -1;
    heads.forEach((head, i) => {
      if (!head.done && (pick < 0 || head.value.at < (heads[pick]!.value as CsvRecord).at)) pick = i;
    });
    if (pick < 0) return;
    yield heads[pick]!.value as CsvRecord;
    heads[pick] = await iterators[pick]!.next();
  }
}

/** One row per message, status change, assignment and hand-off, each conversation's in the order they happened. */
async function* csvTranscripts(pages: AsyncIterable<TranscriptPage>): AsyncGenerator<string> {
  // A byte order mark, so that spreadsheets read the file as UTF-8.
  yield `\uFEFF${csvRow(csvColumns)}`;
  for await (const page of pages) {
    for (const c of page.conversations) {
      const conversationCells = {
        conversation_id: c.id,
        channel: c.channel,
        conversation_status: c.status,
        customer_phone: c.customerPhone,
        customer_id: c.customerId,
        customer_name: c.customerName,
        conversation_created_at: iso(c.createdAt),
      };
      const records = mergeByTime([
        mapped(page.messages.of(c.id), messageRecord),
        mapped(page.timeline.of(c.id), eventRecord),
        mapped(page.handoffs.of(c.id), handoffRecord),
      ]);
      for await (const { at, cells } of records) {
        const row: Record<string, string | number | null> = { ...conversationCells, ...cells, at: iso(at) };
        yield csvRow(csvColumns.map((column) => row[column] ?? null));
      }
    }
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
