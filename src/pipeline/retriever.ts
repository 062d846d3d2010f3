import type { ContextChunk, Turn } from "../ai/engine.js";
import { countTokens } from "../knowledge/chunk.js";
import { searchKnowledge } from "../knowledge/search.js";
import type { Services } from "../services.js";
import { answerSettings, searchTextOf } from "./answer-settings.js";
import type { InboundMessage } from "./inbound.js";

export interface Retrieved {
  context: ContextChunk[];
  history: Turn[];
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

/** The tenant's knowledge for the question: hybrid search, top-k, as the engine receives it. */
export async function retrieveKnowledge(services: Services, tenantId: string, text: string): Promise<ContextChunk[]> {
  const hits = await searchKnowledge(services, tenantId, text, retrievalTopK);
  return hits.map((h) => ({
    sourceId: h.sourceId,
    sourceTitle: h.sourceTitle,
    title: h.title,
    url: h.url,
    page: h.page,
    content: h.content,
    similarity: h.similarity,
  }));
}

/**
 * The knowledge search for a customer's message, started as soon as the message arrives: it needs only the tenant
 * and the text, so it runs while the router finds the conversation, stores the message and classifies it (a call
 * to the model server, with a model engine), and the answer waits for it only as long as it outlasts them. A
 * message that gets no answer from the AI (a hand-off, a human's conversation, a redelivery) leaves it unread.
 */
export function searchAhead(services: Services, msg: InboundMessage): Promise<ContextChunk[]> {
  if (msg.kind && msg.kind !== "text") return Promise.resolve([]);
  const search = answerSettings(services, msg.tenantId).then((settings) =>
    retrieveKnowledge(services, msg.tenantId, searchTextOf(settings, msg.text)),
  );
  // Awaited only on the AI's path: elsewhere its failure is of no consequence, and must not surface as unhandled.
  search.catch(() => undefined);
  return search;
}

/** The tenant's knowledge for the question (a search started ahead) and the recent turns of the conversation. */
export async function retrieve(
  services: Services,
  input: { tenantId: string; conversationId: string; customerMessageId: string; knowledge: Promise<ContextChunk[]> },
): Promise<Retrieved> {
  const [context, history] = await Promise.all([
    input.knowledge,
    recentHistory(services, input.tenantId, input.conversationId, input.customerMessageId),
  ]);
  return { context, history };
}
