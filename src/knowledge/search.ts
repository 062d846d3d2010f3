import type { Services } from "../services.js";
import { fullTextCandidates } from "./full-text.js";

export interface KnowledgeHit {
  chunkId: string;
  sourceId: string;
  sourceTitle: string;
  title: string | null;
  url: string | null;
  page: number | null;
  content: string;
  /** Reciprocal-rank fusion of the vector and full-text rankings: the order of the results. */
  score: number;
  /** Cosine similarity of the chunk to the query: what relevance thresholds compare against. */
  similarity: number;
}

// The usual RRF constant: damps the weight of the very first ranks.
const rrfK = 60;
const candidateFactor = 4;

function fuse(rankings: string[][]): Map<string, number> {
  const fused = new Map<string, number>();
  for (const ranking of rankings) {
    for (const [index, id] of ranking.entries()) fused.set(id, (fused.get(id) ?? 0) + 1 / (rrfK + index + 1));
  }
  return fused;
}

function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i] ?? 0) * (b[i] ?? 0);
  return sum;
}

/**
 * Hybrid search of one tenant's knowledge base (DESIGN §5): nearest neighbours from the vector
 * index and PostgreSQL full-text matches (those sharing the most words first), fused by reciprocal rank.
 * The tenant filter comes first in both halves.
 */
export async function searchKnowledge(services: Services, tenantId: string, query: string, topK = 5): Promise<KnowledgeHit[]> {
  const text = query.trim();
  if (!text) return [];
  const candidates = topK * candidateFactor;
  const [queryVector] = await services.embedder.embed([text]);
  const [vectorHits, textHits] = await Promise.all([
    services.vectors.search(tenantId, queryVector!, candidates),
    fullTextCandidates(services, tenantId, text, candidates),
  ]);
  const fused = fuse([vectorHits.map((h) => h.chunkId), textHits]);
  const best = [...fused.entries()].sort((a, b) => b[1] - a[1]).slice(0, topK);
  if (!best.length) return [];
  const rows = await services.db.sql.query<{
    id: string;
    source_id: string;
    source_title: string;
    title: string | null;
    url: string | null;
    page: number | null;
    content: string;
    embedding: number[];
  }>(
    `SELECT c.id, c.source_id, s.title AS source_title, c.title, c.url, c.page, c.content, c.embedding
       FROM chunks c JOIN knowledge_sources s ON s.id = c.source_id
      WHERE c.tenant_id = $1 AND c.id = ANY($2::text[])`,
    [tenantId, best.map(([id]) => id)],
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  return best.flatMap(([id, score]) => {
    const row = byId.get(id);
    if (!row) return [];
    return [
      {
        chunkId: id,
        sourceId: row.source_id,
        sourceTitle: row.source_title,
        title: row.title,
        url: row.url,
        page: row.page,
        content: row.content,
        score,
        similarity: dot(queryVector!, row.embedding ?? []),
      },
    ];
  });
}
