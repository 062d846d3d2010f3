import { z } from "zod";
import type { Prisma } from "../db/generated/prisma/client.js";
import { evaluateAfterKnowledgeChange } from "../evaluations/job.js";
import { sourceData } from "../events/payloads.js";
import type { JobRecord } from "../jobs/queue.js";
import { PermanentJobError } from "../jobs/queue.js";
import type { Services } from "../services.js";
import { type CrawlProgress, CrawlRefusedError, type CrawlReport, crawlSite } from "./crawl.js";
import { ExtractionError } from "./extract.js";
import { type IndexScope, indexPages, removePages, type StalePages, sourceTotals } from "./ingest.js";

export const syncQueue = "knowledge.sync";

export interface SyncPayload {
  sourceId: string;
}

type SyncTx = Pick<Prisma.TransactionClient, "knowledgeSource" | "$queryRaw">;

/** Marks a source pending and enqueues its sync in the same transaction; a sync already waiting absorbs it. */
export async function markForSync(services: Services, tx: SyncTx, tenantId: string, sourceId: string) {
  const source = await tx.knowledgeSource.update({ where: { id: sourceId }, data: { status: "pending", error: null } });
  const payload: SyncPayload = { sourceId };
  await services.jobs.enqueue({ queue: syncQueue, tenantId, payload: { ...payload }, dedupeKey: sourceId, maxAttempts: 5 }, tx);
  return source;
}

/** Tenant settings that shape a crawl (DESIGN §5). Which addresses it may reach is the operator's decision alone. */
interface CrawlSettings {
  crawlMaxPages?: number;
  crawlMaxDepth?: number;
}

/** Tells the tenant's dashboards, on every instance, that a source's status or progress changed. */
function announceSource(services: Services, scope: IndexScope): void {
  services.realtime.pubsub.publish("knowledge:source", scope.tenantId, { sourceId: scope.sourceId });
}

async function setStatus(services: Services, scope: IndexScope, data: Prisma.KnowledgeSourceUpdateInput): Promise<void> {
  await services.db.prisma.knowledgeSource.updateMany({ where: { id: scope.sourceId, tenantId: scope.tenantId }, data });
  announceSource(services, scope);
}

/** A source's final status after indexing (ready or failed), with its event for the tenant's endpoints in one transaction. */
export async function finishSource(
  services: Services,
  scope: IndexScope,
  data: Prisma.KnowledgeSourceUpdateInput & { status: "ready" | "failed" },
) {
  const type = data.status === "ready" ? "knowledge.source_ready" : "knowledge.source_failed";
  const [source] = await services.events.withEvent<Array<Prisma.KnowledgeSourceGetPayload<object>>>(
    services.db.prisma,
    { tenantId: scope.tenantId, type, data: ([row]) => (row ? sourceData(row) : null) },
    (tx) => tx.knowledgeSource.updateManyAndReturn({ where: { id: scope.sourceId, tenantId: scope.tenantId }, data }),
  );
  announceSource(services, scope);
  return source;
}

/** What a URL source's `report` column holds: its crawl's progress and problems so far, and once it has ended, how. */
function crawlSummary(report: Readonly<CrawlReport>, progress: CrawlProgress | null, ended: boolean) {
  return {
    ...(ended ? { stoppedBecause: report.stoppedBecause, complete: report.complete } : {}),
    progress: progress && { ...progress },
    errors: report.errors.slice(0, 100),
    skipped: report.skipped.slice(0, 100),
  };
}

const progressShape = z.object({ done: z.number().int(), discovered: z.number().int(), maxPages: z.number().int() });

/** A URL source's crawl progress, from its `report` column; null for other sources and before a crawl. */
export function crawlProgressOf(report: unknown): CrawlProgress | null {
  return progressShape.safeParse((report as { progress?: unknown } | null)?.progress).data ?? null;
}

/**
 * The pages a crawl shows to be gone: on a complete crawl every page it did not read, otherwise only
 * those that answered 404 or 410. A crawl that read nothing (the site down, or refusing us) proves nothing.
 */
function stalePages(report: CrawlReport, read: Set<string>): StalePages | null {
  if (read.size === 0) return null;
  return report.complete ? { keep: read } : { drop: report.gone };
}

async function crawlSource(services: Services, scope: IndexScope, url: string, settings: CrawlSettings) {
  const read = new Set<string>();
  await setStatus(services, scope, { status: "crawling", error: null, pages: 0, report: {} });
  let progress: CrawlProgress | null = null;
  const report = await crawlSite(
    url,
    {
      maxPages: settings.crawlMaxPages,
      maxDepth: settings.crawlMaxDepth,
      egress: services.egress,
      reader: services.reader,
      onProgress: async (now, sofar) => {
        progress = now;
        await setStatus(services, scope, {
          pages: read.size,
          ...(await sourceTotals(services, scope)),
          report: crawlSummary(sofar, now, false),
        });
      },
    },
    async (page) => {
      read.add(page.url);
      await indexPages(services, scope, [{ url: page.url, page: null, title: page.title || page.url, text: page.text }], "pages");
    },
  );
  await setStatus(services, scope, { status: "indexing" });
  const stale = stalePages(report, read);
  if (stale) await removePages(services, scope, stale);
  return {
    pages: read.size,
    report: crawlSummary(report, progress, true),
    error: read.size === 0 ? `No page could be read from ${url}${report.errors[0] ? `: ${report.errors[0].error}` : ""}` : null,
  };
}

async function extractSource(services: Services, scope: IndexScope, title: string, file: Uint8Array) {
  await setStatus(services, scope, { status: "indexing", error: null });
  const pdf = await services.reader.pdf(file);
  const pages = pdf.pages.map((p) => ({ url: null, page: p.page, title: pdf.title ?? title, text: p.text }));
  await indexPages(services, scope, pages, "source");
  return { pages: pages.length, report: {}, error: null };
}

/**
 * Brings one source's chunks up to date: crawls a URL, extracts a stored PDF, or re-indexes manual
 * text. Idempotent: a retried or repeated sync replaces the same chunks.
 */
export async function syncSource(services: Services, job: JobRecord): Promise<void> {
  const { sourceId } = job.payload as SyncPayload;
  const source = await services.db.prisma.knowledgeSource.findUnique({ where: { id: sourceId }, include: { tenant: true } });
  if (!source) return;
  const scope = { tenantId: source.tenantId, sourceId };
  try {
    let outcome: { pages: number; report: object; error: string | null };
    if (source.type === "url") {
      outcome = await crawlSource(services, scope, source.sourceUrl!, source.tenant.settings as CrawlSettings);
    } else if (source.type === "pdf") {
      outcome = await extractSource(services, scope, source.title, source.fileData ?? new Uint8Array());
    } else {
      await setStatus(services, scope, { status: "indexing", error: null });
      await indexPages(services, scope, [{ url: null, page: null, title: source.title, text: source.content ?? "" }], "source");
      outcome = { pages: 1, report: {}, error: null };
    }
    await finishSource(services, scope, {
      ...(await sourceTotals(services, scope)),
      pages: outcome.pages,
      report: outcome.report,
      status: outcome.error ? "failed" : "ready",
      error: outcome.error,
      lastSyncedAt: new Date(),
    });
    if (!outcome.error) await evaluateAfterKnowledgeChange(services, source.tenantId);
  } catch (err) {
    const permanent = err instanceof CrawlRefusedError || err instanceof ExtractionError;
    if (permanent || job.attempts >= job.maxAttempts) {
      await finishSource(services, scope, { status: "failed", error: (err as Error).message });
    }
    throw permanent ? new PermanentJobError((err as Error).message) : err;
  }
}
