import { type Passage, passageOf, passageProbability, rankPassages } from "../ai/relevance.js";
import { RecentlyUsed } from "../ai/remembered.js";
import { encodeMeaning } from "../ai/semantic.js";
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
  /** The relevance model's probability that the chunk answers the query (src/ai/relevance.ts): the order of the results. */
  score: number;
  /** Cosine similarity of the chunk to the query: what relevance thresholds compare against. */
  similarity: number;
  /** The tenant's FAQ entry classifier's probability that the query asks this entry (0: not an FAQ unit); null without one. */
  entry: number | null;
}

// The usual RRF constant: damps the weight of the very first ranks.
const rrfK = 60;
const candidateFactor = 4;
// The relevance model re-ranks a pool wider than what the caller keeps (the right FAQ entry is often not first in
// either ranking), but reading a pool's chunks costs: the best of the fused ranking, at most this many.
const poolSize = 20;

function fuse(rankings: string[][]): Map<string, number> {
  const fused = new Map<string, number>();
  for (const ranking of rankings) {
    for (const [index, id] of ranking.entries()) fused.set(id, (fused.get(id) ?? 0) + 1 / (rrfK + index + 1));
  }
  return fused;
}

/**
 * Hybrid search of one tenant's knowledge base (DESIGN §5): nearest neighbours from the vector
 * index and PostgreSQL full-text matches (those sharing the most words first), fused by reciprocal rank, then
 * re-ranked by the relevance model. The tenant filter comes first in both halves. A question asked before, of
 * knowledge that has not changed since, gets the result found then (src/knowledge/remembered-searches.ts): frozen,
 * as callers share it.
 */
export function searchKnowledge(services: Services, tenantId: string, query: string, topK = 5): Promise<readonly KnowledgeHit[]> {
  const text = query.trim();
  if (!text) return Promise.resolve([]);
  return services.searches.recall(tenantId, `${topK}\n${text}`, async () => {
    const hits = await search(services, tenantId, text, topK);
    for (const hit of hits) Object.freeze(hit);
    return Object.freeze(hits);
  });
}

async function search(services: Services, tenantId: string, text: string, topK: number): Promise<KnowledgeHit[]> {
  const candidates = Math.max(topK * candidateFactor, poolSize);
  const [queryVector] = await services.embedder.embed([text]);
  const [vectorHits, textHits] = await Promise.all([
    services.vectors.search(tenantId, queryVector!, candidates),
    fullTextCandidates(services, tenantId, text, candidates),
  ]);
  const fused = fuse([vectorHits.map((h) => h.chunkId), textHits]);
  if (!fused.size) return [];
  const pool = [...fused.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, Math.max(topK, poolSize))
    .map(([id]) => id);
  const similarityOf = new Map(vectorHits.map((h) => [h.chunkId, h.score]));
  const [rows, textSimilarities] = await Promise.all([
    chunkRows(services, tenantId, pool),
    // The full-text candidates' similarity comes from the vector index, which holds their vectors: read from the
    // database, an embedding is 6 kB a chunk (on PGlite, 8 of a request's 20 ms of database time).
    services.vectors.similarities(
      tenantId,
      queryVector!,
      pool.filter((id) => !similarityOf.has(id)),
    ),
  ]);
  const found = rows.map((row) => ({
    ...row,
    similarity: similarityOf.get(row.chunkId) ?? textSimilarities.get(row.chunkId) ?? 0,
  }));
  const passages = found.map(passageOf);
  const entries = await entryProbabilities(services, tenantId, text, found, passages);
  const hits = found.map((hit, i) => ({ ...hit, entry: entries[i] ?? null }));
  // The relevance model reads what the two rankings cannot: FAQ questions apart, typos, associated words, intents.
  const withEntries = passages.map((passage, i) => ({ ...passage, entry: entries[i] ?? undefined }));
  const relevance = (await rankPassages(text, withEntries)).logits;
  return hits
    .map((hit, i) => ({ ...hit, score: passageProbability(relevance[i]!), fused: fused.get(hit.chunkId)! }))
    .sort((a, b) => b.score - a.score || b.fused - a.fused || a.chunkId.localeCompare(b.chunkId))
    .slice(0, topK)
    .map(({ fused: _, ...hit }) => hit);
}

type ChunkRow = Pick<KnowledgeHit, "chunkId" | "sourceId" | "sourceTitle" | "title" | "url" | "page" | "content">;

/**
 * Rows of chunks that searches read, by tenant and chunk id. A chunk's row never changes (a changed text is stored as a
 * new chunk, and a source keeps its title), so a row read once stays right until the chunk is deleted; a deleted chunk
 * leaves the full-text search at once and the vector index with its removal, which is where a pool's ids come from.
 * 20,000 rows of a kilobyte or two, some tens of MB: a bank's whole knowledge base, or several. With 5,000, customers'
 * new questions over 10,000 chunks still read a row of their pool with a statement (1.4-2.4 ms of the embedded
 * database's thread) in 46 requests of 100 after 2,500 questions, where 20,000 leave 33.
 */
const readRows = new RecentlyUsed<ChunkRow>(20_000);

/** The tenant's chunks among `ids`, from the rows read before, the others in one statement. */
async function chunkRows(services: Pick<Services, "db">, tenantId: string, ids: string[]): Promise<ChunkRow[]> {
  const rows: ChunkRow[] = [];
  const missing: string[] = [];
  for (const id of ids) {
    const row = readRows.get(`${tenantId}:${id}`);
    if (row) rows.push(row);
    else missing.push(id);
  }
  if (!missing.length) return rows;
  const read = await services.db.sql.query<{
    id: string;
    source_id: string;
    source_title: string;
    title: string | null;
    url: string | null;
    page: number | null;
    content: string;
  }>(
    `SELECT c.id, c.source_id, s.title AS source_title, c.title, c.url, c.page, c.content
       FROM chunks c JOIN knowledge_sources s ON s.id = c.source_id
      WHERE c.tenant_id = $1 AND c.id = ANY($2::text[])`,
    [tenantId, missing],
  );
  for (const r of read) {
    const row = {
      chunkId: r.id,
      sourceId: r.source_id,
      sourceTitle: r.source_title,
      title: r.title,
      url: r.url,
      page: r.page,
      content: r.content,
    };
    readRows.set(`${tenantId}:${r.id}`, row);
    rows.push(row);
  }
  return rows;
}

/** Each hit's probability by the tenant's FAQ entry classifier (0 for ordinary text, a passage with no FAQ question), or null when it has none. */
async function entryProbabilities(
  services: Pick<Services, "faqEntries">,
  tenantId: string,
  query: string,
  hits: Array<Pick<KnowledgeHit, "chunkId">>,
  passages: Passage[],
): Promise<Array<number | null>> {
  const units = hits.map((hit, i) => (passages[i]!.question !== null ? hit.chunkId : null));
  const ids = units.filter((id): id is string => id !== null);
  const model = ids.length ? services.faqEntries.model(tenantId, ids) : null;
  // The relevance model encodes the question too: this is the same encoding, remembered.
  const [asked] = model ? await encodeMeaning([query]) : [null];
  if (!model || !asked) return hits.map(() => null);
  const probabilities = model.probabilities(asked);
  return units.map((id) => (id ? (probabilities.get(id) ?? 0) : 0));
}
