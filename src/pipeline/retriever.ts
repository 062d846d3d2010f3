import type { ContextChunk, Turn } from "../ai/engine.js";
import { countTokens } from "../knowledge/chunk.js";
import { searchKnowledge } from "../knowledge/search.js";
import type { Services } from "../services.js";

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

/** The tenant's knowledge for the question and the recent turns of the conversation. */
export async function retrieve(
  services: Services,
  input: { tenantId: string; conversationId: string; customerMessageId: string; text: string },
): Promise<Retrieved> {
  const [context, history] = await Promise.all([
    retrieveKnowledge(services, input.tenantId, input.text),
    recentHistory(services, input.tenantId, input.conversationId, input.customerMessageId),
  ]);
  return { context, history };
}
