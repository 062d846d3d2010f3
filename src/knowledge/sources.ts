import { newId } from "../db/ids.js";
import type { TenantDb } from "../db/tenant-scope.js";
import { AppError, notFound } from "../errors.js";
import { evaluateAfterKnowledgeChange } from "../evaluations/job.js";
import type { Services } from "../services.js";
import { announceChunks, type IndexResult, indexPages } from "./ingest.js";
import { finishSource, markForSync } from "./sync.js";

export const maxPdfBytes = 20 * 1024 * 1024;

/** Schedules a source's sync; a sync already waiting for the same source absorbs the request. */
const enqueueSync = (services: Services, db: TenantDb, tenantId: string, sourceId: string) =>
  db.$transaction((tx) => markForSync(services, tx as unknown as Parameters<typeof markForSync>[1], tenantId, sourceId));

export async function addUrlSource(services: Services, db: TenantDb, tenantId: string, url: string) {
  const id = newId("src");
  await db.knowledgeSource.create({ data: { id, tenantId, type: "url", title: new URL(url).host, sourceUrl: url } });
  return enqueueSync(services, db, tenantId, id);
}

/** Manual text is indexed before answering, so it can be asked about at once. */
export async function addManualSource(services: Services, db: TenantDb, tenantId: string, title: string, content: string) {
  const id = newId("src");
  await db.knowledgeSource.create({ data: { id, tenantId, type: "manual", title, content, status: "indexing" } });
  let totals: IndexResult;
  try {
    totals = await indexPages(services, { tenantId, sourceId: id }, [{ url: null, page: null, title, text: content }], "source");
  } catch (error) {
    // The text is kept: the listing says why it cannot be searched, and a resync retries it.
    await finishSource(services, { tenantId, sourceId: id }, { status: "failed", error: (error as Error).message });
    throw error;
  }
  const ready = await finishSource(
    services,
    { tenantId, sourceId: id },
    { status: "ready", pages: 1, chunks: totals.chunks, tokens: totals.tokens, lastSyncedAt: new Date() },
  );
  // Deleted while it was being indexed.
  if (!ready) throw notFound("Knowledge source");
  await evaluateAfterKnowledgeChange(services, tenantId);
  return ready;
}

export function looksLikePdf(bytes: Uint8Array): boolean {
  return Buffer.from(bytes.subarray(0, 1024)).includes("%PDF-");
}

export async function addPdfSource(services: Services, db: TenantDb, tenantId: string, file: File, title?: string | null) {
  if (file.size > maxPdfBytes) {
    throw new AppError("VALIDATION", `The PDF is larger than ${maxPdfBytes / 1024 / 1024} MiB`, [
      { path: "file", message: "too large" },
    ]);
  }
  const bytes = new Uint8Array(await file.arrayBuffer());
  if (!looksLikePdf(bytes)) throw new AppError("VALIDATION", "The file is not a PDF", [{ path: "file", message: "not a PDF" }]);
  const id = newId("src");
  const name = title?.trim() || file.name.replace(/\.pdf$/i, "") || "Document";
  await db.knowledgeSource.create({
    data: { id, tenantId, type: "pdf", title: name, fileName: file.name, fileData: Buffer.from(bytes) },
  });
  return enqueueSync(services, db, tenantId, id);
}

export async function resyncSource(services: Services, db: TenantDb, tenantId: string, id: string) {
  if (!(await db.knowledgeSource.findUnique({ where: { id }, select: { id: true } }))) throw notFound("Knowledge source");
  // The tenant's retention period removed the uploaded file: its indexed text stays, and a sync would have nothing to read.
  if (await db.knowledgeSource.count({ where: { id, type: "pdf", fileData: null } })) {
    throw new AppError("VALIDATION", "The uploaded file was removed at the end of its retention period: upload it again", [
      { path: "id", message: "file removed by retention" },
    ]);
  }
  return enqueueSync(services, db, tenantId, id);
}

export async function deleteSource(services: Services, db: TenantDb, tenantId: string, id: string) {
  const chunks = await db.chunk.findMany({ where: { sourceId: id }, select: { id: true } });
  const deleted = await db.knowledgeSource.deleteMany({ where: { id } });
  if (!deleted.count) throw notFound("Knowledge source");
  await services.vectors.removed(
    tenantId,
    chunks.map((c) => c.id),
  );
  announceChunks(services, tenantId);
  await evaluateAfterKnowledgeChange(services, tenantId);
  return { deleted: id, chunks: chunks.length };
}
