import multer from "multer";
import { z } from "zod";
import { AppError } from "../errors.js";
import { maxPdfBytes } from "../knowledge/sources.js";
import type { Services } from "../services.js";
import { runOperation } from "./execute.js";
import {
  AddKnowledgeSourceDocument,
  DeleteKnowledgeSourceDocument,
  type KnowledgeSourceFieldsFragment,
  KnowledgeSummaryDocument,
  ListKnowledgeSourcesDocument,
  SearchKnowledgeDocument,
  SyncKnowledgeSourceDocument,
  UploadPdfSourceDocument,
} from "./generated.js";
import { bodyId, objectBody, Reply, type RestRoute } from "./route.js";

/** The knowledge source record of DESIGN §3. */
function sourceRecord(s: KnowledgeSourceFieldsFragment) {
  return {
    id: s.id,
    type: s.type,
    title: s.title,
    source_url: s.sourceUrl,
    file_name: s.fileName,
    status: s.status,
    error: s.error,
    pages: s.pages,
    progress: s.progress && { done: s.progress.done, discovered: s.progress.discovered, max_pages: s.progress.maxPages },
    chunks: s.chunks,
    tokens: s.tokens,
    last_synced_at: s.lastSyncedAt,
    created_at: s.createdAt,
  };
}

const SourceRecord = z.object({
  id: z.string(),
  type: z.enum(["url", "manual", "pdf"]),
  title: z.string(),
  source_url: z.string().nullable(),
  file_name: z.string().nullable(),
  status: z.enum(["pending", "crawling", "indexing", "ready", "failed"]),
  error: z.string().nullable(),
  pages: z.number().int(),
  progress: z
    .object({
      done: z.number().int().describe("URLs handled so far: read, failed or skipped"),
      discovered: z.number().int().describe("URLs found so far through links and sitemaps, handled or waiting"),
      max_pages: z.number().int().describe("The most pages the crawl reads"),
    })
    .nullable()
    .describe("Where the crawl of a URL source stands (null before its first crawl, and for other sources)"),
  chunks: z.number().int(),
  tokens: z.number().int(),
  last_synced_at: z.string().nullable(),
  created_at: z.string(),
});

const upload = multer({ storage: multer.memoryStorage(), limits: { fileSize: maxPdfBytes, files: 1 } });

/** multipart/form-data with a `file` field; other bodies pass through to the JSON handling. */
const pdfUpload: RestRoute["before"] = [
  (req, res, next) => {
    if (!req.is("multipart/form-data")) return next();
    upload.single("file")(req, res, (err: unknown) => {
      if (err instanceof multer.MulterError) {
        const status = err.code === "LIMIT_FILE_SIZE" ? 413 : 422;
        return next(
          new AppError(
            "VALIDATION",
            `Upload rejected: ${err.message}`,
            [{ path: err.field ?? "file", message: err.message }],
            status,
          ),
        );
      }
      if (err instanceof Error) {
        // Busboy's: no boundary, a part cut short, a stream that is not multipart at all.
        const problem = { path: "body", message: err.message };
        return next(new AppError("VALIDATION", `Malformed multipart body: ${err.message}`, [problem], 400));
      }
      next(err);
    });
  },
];

const text = (value: unknown) => (typeof value === "string" ? value : undefined);

export function knowledgeRoutes(services: Services): RestRoute[] {
  return [
    {
      method: "get",
      path: "/api/knowledge/sources",
      tag: "Knowledge",
      summary: "List the tenant's knowledge sources",
      response: { status: 200, description: "All sources, newest first", schema: z.object({ sources: z.array(SourceRecord) }) },
      errors: [401, 403, 429],
      async handle(req) {
        const { knowledgeSources } = await runOperation(services, req, ListKnowledgeSourcesDocument, {});
        return { sources: knowledgeSources.map(sourceRecord) };
      },
    },
    {
      method: "post",
      path: "/api/knowledge/sources",
      tag: "Knowledge",
      summary: "Add a URL source (crawled in the background), manual text (indexed at once) or a PDF (multipart field `file`)",
      body: z.union([
        z.object({ type: z.literal("url"), source_url: z.string() }),
        z.object({ type: z.literal("manual"), title: z.string(), content: z.string() }),
      ]),
      response: {
        status: 202,
        description: "URL or PDF source accepted; it is crawled or extracted as a job",
        schema: SourceRecord,
      },
      alsoReplies: [{ status: 201, description: "Manual text, indexed and ready" }],
      errors: [401, 403, 413, 422, 429],
      before: pdfUpload,
      async handle(req) {
        if (req.file) {
          const file = new File([new Uint8Array(req.file.buffer)], req.file.originalname, { type: req.file.mimetype });
          const { uploadPdfSource } = await runOperation(services, req, UploadPdfSourceDocument, {
            file,
            title: text(req.body?.title),
          } as never);
          return new Reply(202, sourceRecord(uploadPdfSource));
        }
        if (req.is("multipart/form-data")) {
          throw new AppError("VALIDATION", "A PDF upload needs a `file` field", [{ path: "file", message: "required" }]);
        }
        const body = objectBody(req.body);
        const type = text(body.type);
        if (type !== "url" && type !== "manual") {
          throw new AppError("VALIDATION", 'type must be "url" or "manual" (or upload a PDF as multipart/form-data)', [
            { path: "type", message: "must be url or manual" },
          ]);
        }
        const { addKnowledgeSource } = await runOperation(services, req, AddKnowledgeSourceDocument, {
          type,
          sourceUrl: text(body.source_url),
          title: text(body.title),
          content: text(body.content),
        });
        return new Reply(type === "manual" ? 201 : 202, sourceRecord(addKnowledgeSource));
      },
    },
    {
      method: "patch",
      path: "/api/knowledge/sources",
      tag: "Knowledge",
      summary: 'Resync one source: `{id, action: "sync"}`',
      body: z.object({ id: z.string(), action: z.literal("sync") }),
      response: { status: 202, description: "The sync is scheduled", schema: SourceRecord },
      errors: [401, 403, 404, 422, 429],
      async handle(req) {
        const body = objectBody(req.body);
        if (body.action !== "sync")
          throw new AppError("VALIDATION", 'action must be "sync"', [{ path: "action", message: "must be sync" }]);
        const { syncKnowledgeSource } = await runOperation(services, req, SyncKnowledgeSourceDocument, { id: bodyId(body) });
        return sourceRecord(syncKnowledgeSource);
      },
    },
    {
      method: "delete",
      path: "/api/knowledge/sources",
      tag: "Knowledge",
      summary: "Delete a source and all its chunks: `?id=<source_id>`",
      query: z.object({ id: z.string() }),
      response: { status: 200, description: "Deleted", schema: z.object({ deleted: z.string(), chunks: z.number().int() }) },
      errors: [401, 403, 404, 422, 429],
      async handle(req) {
        const id = text(req.query.id);
        if (!id) throw new AppError("VALIDATION", "id query parameter is required", [{ path: "id", message: "required" }]);
        const { deleteKnowledgeSource } = await runOperation(services, req, DeleteKnowledgeSourceDocument, { id });
        return deleteKnowledgeSource;
      },
    },
    {
      method: "get",
      path: "/api/knowledge",
      tag: "Knowledge",
      summary: "Summary of the knowledge base: sources by status, chunks, tokens, last sync",
      response: {
        status: 200,
        description: "Summary",
        schema: z.object({
          sources: z.number().int(),
          by_status: z.record(z.string(), z.number().int()),
          chunks: z.number().int(),
          tokens: z.number().int(),
          last_synced_at: z.string().nullable(),
        }),
      },
      errors: [401, 403, 429],
      async handle(req) {
        const { knowledgeSummary: s } = await runOperation(services, req, KnowledgeSummaryDocument, {});
        return {
          sources: s.sources,
          by_status: Object.fromEntries(s.byStatus.map((b) => [b.status, b.count])),
          chunks: s.chunks,
          tokens: s.tokens,
          last_synced_at: s.lastSyncedAt,
        };
      },
    },
    {
      method: "post",
      path: "/api/knowledge",
      tag: "Knowledge",
      summary: "Test the knowledge base: the chunks retrieval would give the AI for a query, best first",
      body: z.object({ query: z.string(), topK: z.number().int().min(1).max(50).optional() }),
      response: {
        status: 200,
        description: "Matching chunks",
        schema: z.object({
          query: z.string(),
          results: z.array(
            z.object({
              chunk_id: z.string(),
              source_id: z.string(),
              source_title: z.string(),
              title: z.string().nullable(),
              url: z.string().nullable(),
              page: z.number().int().nullable(),
              text: z.string(),
              score: z.number(),
              similarity: z.number(),
            }),
          ),
        }),
      },
      errors: [401, 403, 422, 429],
      async handle(req) {
        const body = objectBody(req.body);
        const { searchKnowledge } = await runOperation(services, req, SearchKnowledgeDocument, {
          query: body.query as string,
          topK: body.topK as number | undefined,
        });
        return {
          query: body.query,
          results: searchKnowledge.map((h) => ({
            chunk_id: h.chunkId,
            source_id: h.sourceId,
            source_title: h.sourceTitle,
            title: h.title,
            url: h.url,
            page: h.page,
            text: h.text,
            score: h.score,
            similarity: h.similarity,
          })),
        };
      },
    },
  ];
}
