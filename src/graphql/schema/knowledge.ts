import { z } from "zod";
import { notFound } from "../../errors.js";
import type { CrawlProgress } from "../../knowledge/crawl.js";
import { type KnowledgeHit, searchKnowledge } from "../../knowledge/search.js";
import { addManualSource, addPdfSource, addUrlSource, deleteSource, resyncSource } from "../../knowledge/sources.js";
import { crawlProgressOf } from "../../knowledge/sync.js";
import { builder } from "../builder.js";
import { parseInput } from "../validate.js";

export const sourceTypes = ["url", "manual", "pdf"] as const;
export const sourceStatuses = ["pending", "crawling", "indexing", "ready", "failed"] as const;

const KnowledgeProgress = builder.objectRef<CrawlProgress>("KnowledgeProgress").implement({
  description: "Where a URL source's crawl stands; it keeps its last value once the crawl has ended",
  fields: (t) => ({
    done: t.exposeInt("done", { description: "URLs handled so far: read, failed or skipped" }),
    discovered: t.exposeInt("discovered", { description: "URLs found so far through links and sitemaps, handled or waiting" }),
    maxPages: t.exposeInt("maxPages", { description: "The most pages the crawl reads" }),
  }),
});

export const KnowledgeSource = builder.prismaObject("KnowledgeSource", {
  fields: (t) => ({
    id: t.exposeID("id"),
    type: t.exposeString("type", { description: "url, manual or pdf" }),
    title: t.exposeString("title"),
    sourceUrl: t.exposeString("sourceUrl", { nullable: true }),
    fileName: t.exposeString("fileName", { nullable: true }),
    status: t.exposeString("status", { description: "pending → crawling → indexing → ready | failed" }),
    error: t.exposeString("error", { nullable: true }),
    pages: t.exposeInt("pages", { description: "Pages read so far (crawl progress), or PDF pages" }),
    progress: t.field({
      type: KnowledgeProgress,
      nullable: true,
      description: "The crawl's progress (URL sources that have started a crawl)",
      resolve: (source) => crawlProgressOf(source.report),
    }),
    chunks: t.exposeInt("chunks"),
    tokens: t.exposeInt("tokens"),
    report: t.expose("report", { type: "JSON", description: "The last sync's per-page errors and skipped URLs" }),
    lastSyncedAt: t.expose("lastSyncedAt", { type: "DateTime", nullable: true }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
  }),
});

builder.queryField("knowledgeSources", (t) =>
  t.prismaField({
    type: ["KnowledgeSource"],
    description: "All knowledge sources of the tenant, newest first",
    authScopes: { permission: "read" },
    resolve: (query, _root, _args, ctx) => ctx.db.knowledgeSource.findMany({ ...query, orderBy: { createdAt: "desc" } }),
  }),
);

builder.subscriptionField("knowledgeSourceChanged", (t) =>
  t.prismaField({
    type: "KnowledgeSource",
    nullable: true,
    description:
      "The tenant's knowledge sources as their status and crawl progress change (crawling, indexing, ready, failed), " +
      "live across instances; null for a source removed since",
    authScopes: { permission: "read" },
    subscribe: (_root, _args, ctx) => ctx.services.realtime.pubsub.subscribe("knowledge:source", ctx.tenantId),
    resolve: (query, event: { sourceId: string }, _args, ctx) =>
      ctx.db.knowledgeSource.findUnique({ ...query, where: { id: event.sourceId } }),
  }),
);

builder.queryField("knowledgeSource", (t) =>
  t.prismaField({
    type: "KnowledgeSource",
    authScopes: { permission: "read" },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const source = await ctx.db.knowledgeSource.findUnique({ ...query, where: { id: String(args.id) } });
      if (!source) throw notFound("Knowledge source");
      return source;
    },
  }),
);

const StatusCount = builder.objectRef<{ status: string; count: number }>("KnowledgeStatusCount").implement({
  fields: (t) => ({ status: t.exposeString("status"), count: t.exposeInt("count") }),
});

const KnowledgeSummary = builder
  .objectRef<{
    sources: number;
    byStatus: Array<{ status: string; count: number }>;
    chunks: number;
    tokens: number;
    lastSyncedAt: Date | null;
  }>("KnowledgeSummary")
  .implement({
    fields: (t) => ({
      sources: t.exposeInt("sources"),
      byStatus: t.field({ type: [StatusCount], resolve: (s) => s.byStatus }),
      chunks: t.exposeInt("chunks"),
      tokens: t.exposeInt("tokens"),
      lastSyncedAt: t.expose("lastSyncedAt", { type: "DateTime", nullable: true }),
    }),
  });

builder.queryField("knowledgeSummary", (t) =>
  t.field({
    type: KnowledgeSummary,
    authScopes: { permission: "read" },
    resolve: async (_root, _args, ctx) => {
      const groups = await ctx.db.knowledgeSource.groupBy({
        by: ["status"],
        _count: { _all: true },
        _sum: { chunks: true, tokens: true },
        _max: { lastSyncedAt: true },
      });
      return {
        sources: groups.reduce((n, g) => n + g._count._all, 0),
        byStatus: sourceStatuses.map((status) => ({ status, count: groups.find((g) => g.status === status)?._count._all ?? 0 })),
        chunks: groups.reduce((n, g) => n + (g._sum.chunks ?? 0), 0),
        tokens: groups.reduce((n, g) => n + (g._sum.tokens ?? 0), 0),
        lastSyncedAt: groups.reduce<Date | null>((latest, g) => {
          const d = g._max.lastSyncedAt;
          return d && (!latest || d > latest) ? d : latest;
        }, null),
      };
    },
  }),
);

const Hit = builder.objectRef<KnowledgeHit>("KnowledgeHit").implement({
  fields: (t) => ({
    chunkId: t.exposeID("chunkId"),
    sourceId: t.exposeID("sourceId"),
    sourceTitle: t.exposeString("sourceTitle"),
    title: t.exposeString("title", { nullable: true }),
    url: t.exposeString("url", { nullable: true }),
    page: t.exposeInt("page", { nullable: true }),
    text: t.exposeString("content"),
    score: t.exposeFloat("score", { description: "Fused rank score (reciprocal-rank fusion of vector and full-text)" }),
    similarity: t.exposeFloat("similarity", { description: "Cosine similarity of the chunk to the query" }),
  }),
});

builder.queryField("searchKnowledge", (t) =>
  t.field({
    type: [Hit],
    description: "The chunks retrieval would give the AI for this query, best first",
    authScopes: { permission: "read" },
    args: { query: t.arg.string({ required: true }), topK: t.arg.int({ required: false }) },
    resolve: async (_root, args, ctx) => {
      const input = parseInput(
        z.object({ query: z.string().trim().min(1).max(2000), topK: z.number().int().min(1).max(50).default(5) }),
        args,
      );
      return searchKnowledge(ctx.services, ctx.tenantId, input.query, input.topK);
    },
  }),
);

const addInput = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("url"),
    sourceUrl: z
      .string()
      .max(2048)
      .url()
      .refine((u) => /^https?:\/\//i.test(u), "must be an http(s) URL"),
  }),
  z.object({
    type: z.literal("manual"),
    title: z.string().trim().min(1).max(300),
    content: z.string().trim().min(1, "must not be empty").max(5_000_000),
  }),
]);

builder.mutationField("addKnowledgeSource", (t) =>
  t.prismaField({
    type: "KnowledgeSource",
    description: "A URL source (crawled in the background: status pending) or manual text (indexed at once: status ready)",
    authScopes: { permission: "configure" },
    audit: { action: "knowledge.add", target: "knowledgeSource", id: (_args, _ctx, source) => source?.id },
    args: {
      type: t.arg.string({ required: true, description: "url or manual (PDFs: uploadPdfSource)" }),
      sourceUrl: t.arg.string({ required: false }),
      title: t.arg.string({ required: false }),
      content: t.arg.string({ required: false }),
    },
    resolve: async (_query, _root, args, ctx) => {
      const input = parseInput(addInput, args);
      return input.type === "url"
        ? addUrlSource(ctx.services, ctx.db, ctx.tenantId, input.sourceUrl)
        : addManualSource(ctx.services, ctx.db, ctx.tenantId, input.title, input.content);
    },
  }),
);

builder.mutationField("uploadPdfSource", (t) =>
  t.prismaField({
    type: "KnowledgeSource",
    description: "A PDF (at most 20 MiB), extracted and indexed in the background",
    authScopes: { permission: "configure" },
    audit: { action: "knowledge.add", target: "knowledgeSource", id: (_args, _ctx, source) => source?.id },
    args: { file: t.arg({ type: "File", required: true }), title: t.arg.string({ required: false }) },
    resolve: (_query, _root, args, ctx) => addPdfSource(ctx.services, ctx.db, ctx.tenantId, args.file, args.title),
  }),
);

builder.mutationField("syncKnowledgeSource", (t) =>
  t.prismaField({
    type: "KnowledgeSource",
    description: "Fetches and indexes the source again; unchanged text is not embedded again",
    authScopes: { permission: "configure" },
    audit: { action: "knowledge.sync", target: "knowledgeSource", id: (args) => String(args.id) },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_query, _root, args, ctx) => resyncSource(ctx.services, ctx.db, ctx.tenantId, String(args.id)),
  }),
);

const Deleted = builder.objectRef<{ deleted: string; chunks: number }>("DeletedKnowledgeSource").implement({
  fields: (t) => ({ deleted: t.exposeID("deleted"), chunks: t.exposeInt("chunks") }),
});

builder.mutationField("deleteKnowledgeSource", (t) =>
  t.field({
    type: Deleted,
    description: "Deletes the source and all its chunks",
    authScopes: { permission: "configure" },
    audit: { action: "knowledge.delete", target: "knowledgeSource", id: (args) => String(args.id) },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => deleteSource(ctx.services, ctx.db, ctx.tenantId, String(args.id)),
  }),
);
