import { createHash } from "node:crypto";
import { newId } from "../db/ids.js";
import type { Services } from "../services.js";
import { chunkText } from "./chunk.js";

/** A unit of a source's text: a crawled page, a PDF page, or a manual text. */
export interface DocumentPage {
  url: string | null;
  page: number | null;
  title: string;
  text: string;
}

export interface IndexScope {
  tenantId: string;
  sourceId: string;
}

export interface IndexResult {
  chunks: number;
  tokens: number;
  /** Chunks whose embedding was computed now (the others were unchanged and reused). */
  embedded: number;
}

const hashOf = (text: string) => createHash("sha256").update(text).digest("hex");

interface PlannedChunk {
  id: string;
  position: number;
  content: string;
  tokenCount: number;
  title: string;
  url: string | null;
  page: number | null;
  contentHash: string;
}

function plan(pages: DocumentPage[]): PlannedChunk[] {
  let position = 0;
  return pages.flatMap((p) =>
    chunkText(p.text).map((c) => ({
      id: newId("chk"),
      position: position++,
      content: c.text,
      tokenCount: c.tokens,
      title: c.heading && c.heading !== p.title ? `${p.title} › ${c.heading}` : p.title,
      url: p.url,
      page: p.page,
      contentHash: hashOf(c.text),
    })),
  );
}

/** Embeddings of chunks that already exist with the same text and embedder: unchanged text is not embedded again. */
async function reusableEmbeddings(services: Services, scope: IndexScope, hashes: string[]): Promise<Map<string, number[]>> {
  if (!hashes.length) return new Map();
  const rows = await services.db.sql.query<{ content_hash: string; embedding: number[] }>(
    `SELECT DISTINCT ON (content_hash) content_hash, embedding FROM chunks
      WHERE tenant_id = $1 AND source_id = $2 AND embedder = $3 AND content_hash = ANY($4::text[])`,
    [scope.tenantId, scope.sourceId, services.embedder.name, hashes],
  );
  return new Map(rows.map((r) => [r.content_hash, r.embedding]));
}

const embedBatch = 256;
// Each chunk carries 1,536 floats: a few hundred rows make a statement of megabytes.
const insertBatch = 200;

/**
 * A large source (a 1 MB manual, a 200-page site) is thousands of rows of embeddings: Prisma's
 * default 5 s for an interactive transaction is too short for it on a busy server, and a replace
 * that times out would leave the source failed. The limit grows with the rows.
 */
function replaceTransaction(rows: number) {
  return { maxWait: 10_000, timeout: 30_000 + rows * 20 };
}

async function embedAll(services: Services, texts: string[]): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  for (let i = 0; i < texts.length; i += embedBatch) out.push(...(await services.embedder.embed(texts.slice(i, i + embedBatch))));
  return out;
}

/**
 * Replaces the chunks of some pages of a source (or of the whole source when `replace` is
 * "source") with the chunks of `pages`, in one transaction, then tells the vector index.
 */
export async function indexPages(
  services: Services,
  scope: IndexScope,
  pages: DocumentPage[],
  replace: "source" | "pages",
): Promise<IndexResult> {
  const planned = plan(pages);
  const reuse = await reusableEmbeddings(services, scope, [...new Set(planned.map((c) => c.contentHash))]);
  const missing = planned.filter((c) => !reuse.has(c.contentHash));
  const fresh = await embedAll(
    services,
    missing.map((c) => c.content),
  );
  const embeddingOf = new Map<string, number[]>(missing.map((c, i) => [c.id, Array.from(fresh[i]!)]));
  const rows = planned.map((c) => ({
    ...c,
    tenantId: scope.tenantId,
    sourceId: scope.sourceId,
    embedder: services.embedder.name,
    embedding: embeddingOf.get(c.id) ?? reuse.get(c.contentHash)!,
  }));

  const urls = [...new Set(pages.map((p) => p.url).filter((u): u is string => u !== null))];
  const removed = await services.db.prisma.$transaction(async (tx) => {
    const where =
      replace === "source"
        ? { tenantId: scope.tenantId, sourceId: scope.sourceId }
        : { tenantId: scope.tenantId, sourceId: scope.sourceId, url: { in: urls } };
    const old = await tx.chunk.findMany({ where, select: { id: true } });
    await tx.chunk.deleteMany({ where: { id: { in: old.map((o) => o.id) } } });
    for (let i = 0; i < rows.length; i += insertBatch) await tx.chunk.createMany({ data: rows.slice(i, i + insertBatch) });
    return old.map((o) => o.id);
  }, replaceTransaction(rows.length));
  await services.vectors.removed(scope.tenantId, removed);
  await services.vectors.added(
    scope.tenantId,
    rows.map((r) => ({ id: r.id, embedding: r.embedding })),
  );
  announceChunks(services, scope.tenantId);
  return { chunks: rows.length, tokens: rows.reduce((n, r) => n + r.tokenCount, 0), embedded: missing.length };
}

/**
 * Tells every instance that the tenant's chunks changed (its FAQ entry classifier: src/knowledge/faq-entries.ts; its
 * term index: src/knowledge/term-index.ts). This one's term index forgets them at once: the announcement comes back
 * later, and a search before it would read the index of the chunks before the change.
 */
export function announceChunks(services: Pick<Services, "realtime" | "termIndex">, tenantId: string): void {
  services.termIndex.changed(tenantId);
  services.realtime.pubsub.publish("knowledge:changed", { tenantId });
}

/** Which of a source's pages lose their chunks: all but `keep`, or just `drop`. */
export type StalePages = { keep: Iterable<string> } | { drop: Iterable<string> };

/** Drops the chunks of the source's pages a new crawl found gone, or no longer part of the site. */
export async function removePages(services: Services, scope: IndexScope, pages: StalePages): Promise<number> {
  const url = "keep" in pages ? { NOT: { url: { in: [...pages.keep] } } } : { url: { in: [...pages.drop] } };
  const stale = await services.db.prisma.chunk.findMany({
    where: { tenantId: scope.tenantId, sourceId: scope.sourceId, ...url },
    select: { id: true },
  });
  if (!stale.length) return 0;
  await services.db.prisma.chunk.deleteMany({ where: { id: { in: stale.map((s) => s.id) } } });
  await services.vectors.removed(
    scope.tenantId,
    stale.map((s) => s.id),
  );
  announceChunks(services, scope.tenantId);
  return stale.length;
}

/** The source's counters recomputed from its chunks. */
export async function sourceTotals(services: Services, scope: IndexScope): Promise<{ chunks: number; tokens: number }> {
  const agg = await services.db.prisma.chunk.aggregate({
    where: { tenantId: scope.tenantId, sourceId: scope.sourceId },
    _count: { _all: true },
    _sum: { tokenCount: true },
  });
  return { chunks: agg._count._all, tokens: agg._sum.tokenCount ?? 0 };
}
