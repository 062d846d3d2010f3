import type { ContextChunk, Turn } from "../ai/engine.js";
import { countTokens } from "../knowledge/chunk.js";
import { type KnowledgeHit, searchKnowledge } from "../knowledge/search.js";
import type { Services } from "../services.js";
import { type AnswerSettings, answerSettings, searchTextOf } from "./answer-settings.js";
import { followUpOf } from "./follow-up.js";
import type { InboundMessage } from "./inbound.js";

export interface Retrieved {
  context: readonly ContextChunk[];
  history: Turn[];
  /** A message that leans on the question before it, read with it, and the knowledge found for both (follow-up.ts). */
  followUp?: { question: string; context: readonly ContextChunk[]; first: boolean };
}

export const retrievalTopK = 5;
// The conversation so far that accompanies the question: the most recent turns that fit.
const historyTokenBudget = 1_500;
const historyTurnsScanned = 20;

async function recentHistory(services: Services, tenantId: string, conversationId: string, excludeId: string): Promise<Turn[]> {
  const rows = await services.db.prisma.message.findMany({
    where: { tenantId, conversationId, id: { not: excludeId }, role: { in: ["customer", "assistant", "agent"] } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: historyTurnsScanned,
    select: { role: true, content: true },
  });
  const turns: Turn[] = [];
  let budget = historyTokenBudget;
  for (const row of rows) {
    budget -= countTokens(row.content);
    if (budget < 0) break;
    turns.unshift({ role: row.role as Turn["role"], content: row.content });
  }
  return turns;
}

/**
 * Contexts by the search result they were made of: a remembered search's hits give the same context, the same array,
 * which is what lets the offline engine know the answer it composed from it before (src/ai/local.ts).
 */
const contexts = new WeakMap<readonly KnowledgeHit[], readonly ContextChunk[]>();

/** The tenant's knowledge for the question: hybrid search, top-k, as the engine receives it. Shared, never to be changed. */
export async function retrieveKnowledge(services: Services, tenantId: string, text: string): Promise<readonly ContextChunk[]> {
  const hits = await searchKnowledge(services, tenantId, text, retrievalTopK);
  let context = contexts.get(hits);
  if (!context) {
    context = Object.freeze(hits.map(contextOf));
    contexts.set(hits, context);
  }
  return context;
}

function contextOf(h: KnowledgeHit): ContextChunk {
  return Object.freeze({
    sourceId: h.sourceId,
    sourceTitle: h.sourceTitle,
    title: h.title,
    url: h.url,
    page: h.page,
    content: h.content,
    similarity: h.similarity,
    entry: h.entry,
  });
}

/** What an answer needs that depends only on the tenant and the text: started as the message arrives. */
export interface Ahead {
  settings: Promise<AnswerSettings>;
  knowledge: Promise<readonly ContextChunk[]>;
}

/**
 * The tenant's answer settings and the knowledge search for a customer's message, started as soon as the message
 * arrives: they need only the tenant and the text, so they run while the router finds the conversation, stores the
 * message and classifies it (a call to the model server, with a model engine), and the answer waits for them only
 * as long as they outlast it. A message that gets no answer from the AI (a hand-off, a human's conversation, a
 * redelivery) leaves them unread.
 */
export function searchAhead(services: Services, msg: InboundMessage): Ahead {
  const settings = answerSettings(services, msg.tenantId);
  const knowledge =
    msg.kind && msg.kind !== "text"
      ? Promise.resolve([])
      : settings.then((read) => retrieveKnowledge(services, msg.tenantId, searchTextOf(read, msg.text)));
  // Awaited only on the AI's path: elsewhere their failure is of no consequence, and must not surface as unhandled.
  settings.catch(() => undefined);
  knowledge.catch(() => undefined);
  return { settings, knowledge };
}

/**
 * The tenant's knowledge for the question (a search started ahead) and the recent turns of the conversation: none,
 * with nothing read, when the conversation held no message before this one (`earlierMessages`, its count as routed).
 * A short message that leans on the customer's question before it ("is it free?") is also searched with it.
 */
export async function retrieve(
  services: Services,
  input: {
    tenantId: string;
    conversationId: string;
    customerMessageId: string;
    earlierMessages: number;
    /** The message's text; null when it is not to be read as a follow-up (a listed question picked by its number). */
    text: string | null;
    settings: AnswerSettings;
    knowledge: Promise<readonly ContextChunk[]>;
  },
): Promise<Retrieved> {
  const earlier: Promise<Turn[]> =
    input.earlierMessages === 0
      ? Promise.resolve([])
      : recentHistory(services, input.tenantId, input.conversationId, input.customerMessageId);
  const text = input.text;
  const [context, history, followUp] = await Promise.all([
    input.knowledge,
    earlier,
    earlier.then((turns) => (text === null ? undefined : searchFollowUp(services, input.tenantId, input.settings, text, turns))),
  ]);
  return { context, history, ...(followUp ? { followUp } : {}) };
}

/**
 * A message that leans on the customer's question before it, read with that question, and the knowledge found for
 * both (follow-up.ts); undefined when it stands on its own. `history` is the conversation before it, oldest first.
 */
export async function searchFollowUp(
  services: Services,
  tenantId: string,
  settings: AnswerSettings,
  text: string,
  history: Turn[],
): Promise<Retrieved["followUp"]> {
  const follow = followUpOf(text, history);
  if (!follow) return undefined;
  return { ...follow, context: await retrieveKnowledge(services, tenantId, searchTextOf(settings, follow.question)) };
}
