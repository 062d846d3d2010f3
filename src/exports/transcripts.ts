import type { Prisma } from "../db/generated/prisma/client.js";
import type { TenantDb } from "../db/tenant-scope.js";

// Transcripts read in keyset pages, so that an export holds one page of each kind at a time whatever its size: a
// million messages stream in the memory of a thousand. Messages, timelines and hand-offs are read for a page of
// conversations at a time, so that many short conversations cost a few queries per page, not per conversation.
const conversationPage = 50;
// The most rows of one kind read at once for a page of conversations, and the page size of a long conversation's.
const batchCap = 2000;
const rowPage = 1000;

export const conversationFields = {
  id: true,
  channel: true,
  status: true,
  customerPhone: true,
  customerId: true,
  customerName: true,
  messageCount: true,
  createdAt: true,
  updatedAt: true,
} satisfies Prisma.ConversationSelect;
export type TranscriptConversation = Prisma.ConversationGetPayload<{ select: typeof conversationFields }>;

const messageFields = {
  conversationId: true,
  id: true,
  role: true,
  content: true,
  metadata: true,
  createdAt: true,
  deliveryStatus: true,
  deliveryAttempts: true,
  deliveryError: true,
} satisfies Prisma.MessageSelect;
type MessageRow = Prisma.MessageGetPayload<{ select: typeof messageFields }>;

const eventFields = {
  conversationId: true,
  id: true,
  type: true,
  fromStatus: true,
  toStatus: true,
  actor: true,
  reason: true,
  createdAt: true,
} satisfies Prisma.ConversationEventSelect;
export type TimelineEvent = Prisma.ConversationEventGetPayload<{ select: typeof eventFields }>;

const handoffFields = {
  conversationId: true,
  id: true,
  reason: true,
  priority: true,
  status: true,
  note: true,
  createdBy: true,
  createdAt: true,
  assignedAt: true,
  firstResponseAt: true,
  resolvedAt: true,
  team: { select: { name: true } },
  assignee: { select: { name: true } },
} satisfies Prisma.EscalationSelect;
export type Handoff = Prisma.EscalationGetPayload<{ select: typeof handoffFields }>;

export interface SourceCited {
  source_id: string | null;
  title: string | null;
  url: string | null;
  score: number | null;
}

/** A message as exported: the text, and what the AI engine or the agent recorded about it (sources as written out). */
export interface TranscriptMessage {
  conversationId: string;
  id: string;
  role: string;
  content: string;
  createdAt: Date;
  intent: string | null;
  confidence: number | null;
  agentType: string | null;
  tokensUsed: number | null;
  sources: SourceCited[];
  agent: { id: string; name: string | null } | null;
  delivery: { status: string; attempts: number; error: string | null } | null;
}

type Cursor = { createdAt: Date; id: string } | null;
const byTime = [{ createdAt: "asc" as const }, { id: "asc" as const }];

/**
 * Rows after the cursor in (created_at, id) order. The `gte` repeats what the OR implies so that the database starts
 * its index range at the cursor: each page costs the same, however deep into a long conversation it is.
 */
const after = (cursor: Cursor) =>
  cursor
    ? {
        createdAt: { gte: cursor.createdAt },
        OR: [{ createdAt: { gt: cursor.createdAt } }, { createdAt: cursor.createdAt, id: { gt: cursor.id } }],
      }
    : {};

/** Every row of a keyset-paged query, a page at a time. */
async function* paged<T extends { createdAt: Date; id: string }>(
  size: number,
  fetch: (cursor: Cursor, take: number) => Promise<T[]>,
): AsyncGenerator<T[]> {
  let cursor: Cursor = null;
  for (;;) {
    const rows = await fetch(cursor, size);
    if (rows.length) yield rows;
    if (rows.length < size) return;
    const last = rows[rows.length - 1]!;
    cursor = { createdAt: last.createdAt, id: last.id };
  }
}

/** One kind of row (messages, timeline events, hand-offs) of a page of conversations, one conversation at a time. */
export interface PerConversation<T> {
  /** The conversation's rows, oldest first, in pages. */
  of(conversationId: string): AsyncIterable<T[]>;
}

/**
 * Rows of a page of conversations: read in one query when they are few (short conversations, the usual case: a few
 * queries per page instead of several per conversation). When there are more, the conversations that query read
 * whole are kept, and each other one is keyset-paged on its own.
 */
async function perConversation<T extends { conversationId: string; createdAt: Date; id: string }>(
  ids: string[],
  fetch: (where: Record<string, unknown>, take: number) => Promise<T[]>,
): Promise<PerConversation<T>> {
  const batch = await fetch({ conversationId: { in: ids } }, batchCap + 1);
  // Rows come by conversation: all but the last conversation in a batch that was cut short are whole.
  const cutShort = batch.length > batchCap ? batch[batch.length - 1]!.conversationId : null;
  const whole = new Map<string, T[]>();
  for (const row of batch) {
    if (row.conversationId === cutShort) continue;
    const rows = whole.get(row.conversationId);
    if (rows) rows.push(row);
    else whole.set(row.conversationId, [row]);
  }
  return {
    of: async function* (conversationId) {
      const rows = whole.get(conversationId);
      if (rows) yield rows;
      else if (cutShort) yield* paged(rowPage, (cursor, take) => fetch({ conversationId, ...after(cursor) }, take));
    },
  };
}

/** Up to `conversationPage` conversations with their messages, timelines and hand-offs, each read as needed. */
export interface TranscriptPage {
  conversations: TranscriptConversation[];
  messages: PerConversation<TranscriptMessage>;
  timeline: PerConversation<TimelineEvent>;
  handoffs: PerConversation<Handoff>;
}

const text = (value: unknown) => (typeof value === "string" ? value : null);
const number = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? value : null);

function sourcesOf(value: unknown): SourceCited[] {
  if (!Array.isArray(value)) return [];
  return value.map((s: Record<string, unknown>) => ({
    source_id: text(s?.sourceId),
    title: text(s?.title),
    url: text(s?.url),
    score: number(s?.score),
  }));
}

function transcriptMessage(row: MessageRow): TranscriptMessage {
  const meta = (row.metadata ?? {}) as Record<string, unknown>;
  const agentId = text(meta.agentId);
  return {
    conversationId: row.conversationId,
    id: row.id,
    role: row.role,
    content: row.content,
    createdAt: row.createdAt,
    intent: text(meta.intent),
    confidence: number(meta.confidence),
    agentType: text(meta.agentType),
    tokensUsed: number(meta.tokensUsed),
    sources: sourcesOf(meta.sources),
    agent: agentId ? { id: agentId, name: text(meta.agentName) } : null,
    delivery: row.deliveryStatus
      ? { status: row.deliveryStatus, attempts: row.deliveryAttempts, error: row.deliveryError }
      : null,
  };
}

async function pageOf(db: TenantDb, conversations: TranscriptConversation[]): Promise<TranscriptPage> {
  const ids = conversations.map((c) => c.id);
  const orderBy = [{ conversationId: "asc" as const }, ...byTime];
  const [messages, timeline, handoffs] = await Promise.all([
    perConversation(ids, async (where, take) =>
      (await db.message.findMany({ select: messageFields, where, orderBy, take })).map(transcriptMessage),
    ),
    perConversation(ids, (where, take) => db.conversationEvent.findMany({ select: eventFields, where, orderBy, take })),
    perConversation(ids, (where, take) => db.escalation.findMany({ select: handoffFields, where, orderBy, take })),
  ]);
  return { conversations, messages, timeline, handoffs };
}

/** The conversations a filter selects, by creation (created_at, id), which does not move while the export runs. */
export async function* transcriptPages(db: TenantDb, where: Prisma.ConversationWhereInput): AsyncGenerator<TranscriptPage> {
  const pages = paged(conversationPage, (cursor, take) =>
    db.conversation.findMany({ select: conversationFields, where: { AND: [where, after(cursor)] }, orderBy: byTime, take }),
  );
  for await (const page of pages) yield pageOf(db, page);
}
