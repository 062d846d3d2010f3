import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEmbedder } from "../../src/ai/embeddings.js";
import { loadConfig } from "../../src/config.js";
import { runResyncCheck, scheduleQueue } from "../../src/knowledge/schedule.js";
import { syncQueue } from "../../src/knowledge/sync.js";
import { bankPage, defaultBankPages, startBankSite } from "../fakes/bank-site.js";
import { type FakeOpenAI, startFakeOpenAI } from "../fakes/openai-server.js";
import {
  KnowledgeSourceChangedForTestDocument,
  KnowledgeSourceDetailDocument,
  UpdateCrawlSettingsDocument,
} from "../generated.js";
import { openFeed } from "../helpers/agents.js";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { pdfForm, pdfWithPages, waitForSource } from "./knowledge-api.js";

// Syncing sources through the HTTP surface with a worker running: what a resync keeps and removes,
// the statuses and progress a sync shows on the way, re-embedding, and the periodic resync.

let app: TestApp;
const sites: Array<{ close(): Promise<void> }> = [];

const polling = { timeout: 10_000, interval: 50 };

type Tenant = { tenantId: string; apiKey: string };

async function siteWith(pages = defaultBankPages()) {
  const site = await startBankSite(pages);
  sites.push(site);
  return site;
}

async function crawlingTenant(name: string, settings: { crawlMaxPages?: number; resyncIntervalHours?: number } = {}) {
  const tenant = await app.tenant(name);
  const updated = await app.graphql(UpdateCrawlSettingsDocument, settings, tenant.apiKey);
  expect(updated.errors).toBeUndefined();
  return tenant;
}

async function addSource(tenant: Tenant, body: Record<string, unknown> | FormData) {
  const added = await app.request("/api/knowledge/sources", { key: tenant.apiKey, body });
  expect(added.status).toBeLessThan(300);
  return added.body;
}

async function crawled(tenant: Tenant, url: string) {
  const added = await addSource(tenant, { type: "url", source_url: url });
  return waitForSource(app, added.id, tenant.apiKey);
}

async function resynced(tenant: Tenant, id: string) {
  const sync = await app.request("/api/knowledge/sources", { method: "PATCH", key: tenant.apiKey, body: { id, action: "sync" } });
  expect(sync.status).toBe(202);
  return waitForSource(app, id, tenant.apiKey);
}

async function detail(tenant: Tenant, id: string) {
  const res = await app.graphql(KnowledgeSourceDetailDocument, { id }, tenant.apiKey);
  expect(res.errors).toBeUndefined();
  return res.data!.knowledgeSource;
}

/** The paths of the pages the source has chunks of. */
async function indexedPaths(sourceId: string): Promise<string[]> {
  const chunks = await app.services.db.prisma.chunk.findMany({ where: { sourceId }, select: { url: true } });
  return [...new Set(chunks.map((c) => new URL(c.url!).pathname))].sort();
}

beforeAll(async () => {
  // The fake sites listen on 127.0.0.1, opened to crawls as an operator opens an intranet.
  app = await startTestApp({ EGRESS_ALLOW_CIDRS: "127.0.0.0/8" });
  app.startWorker();
});
afterAll(async () => {
  await app?.close();
  await Promise.all(sites.map((site) => site.close()));
});

// The first crawl of the file starts the document thread, which takes seconds on a loaded machine.
describe("what a resync removes", { timeout: 90_000 }, () => {
  it("keeps pages that failed this time, drops pages that answered 410, and, once the crawl is complete, pages no longer linked", async () => {
    const site = await siteWith();
    const bank = await crawlingTenant("Resync Bank");
    const source = await crawled(bank, `${site.url}/`);
    expect(source).toMatchObject({ status: "ready", pages: 3 });
    expect(await indexedPaths(source.id)).toEqual(["/", "/branches", "/cards"]);

    site.statuses.set("/cards", 500);
    site.statuses.set("/branches", 410);
    expect(await resynced(bank, source.id)).toMatchObject({ status: "ready", pages: 1, error: null });
    expect(await indexedPaths(source.id)).toEqual(["/", "/cards"]);
    const partial = (await detail(bank, source.id)).report as any;
    expect(partial.complete).toBe(false);
    expect(partial.errors).toContainEqual({ url: `${site.url}/cards`, error: "HTTP 500 Internal Server Error" });
    expect(partial.errors).toContainEqual({ url: `${site.url}/branches`, error: "HTTP 410 Gone" });

    site.statuses.clear();
    site.pages.set("/", bankPage("Help centre", "<p>Welcome to the Example Bank help centre.</p>", ["/branches"]));
    expect(await resynced(bank, source.id)).toMatchObject({ status: "ready", pages: 2 });
    expect(((await detail(bank, source.id)).report as any).complete).toBe(true);
    expect(await indexedPaths(source.id)).toEqual(["/", "/branches"]);
  });

  it("removes only pages that answered 404 when the crawl stops at its page limit", async () => {
    const pages = defaultBankPages();
    pages.set(
      "/",
      bankPage("Help centre", "<p>Answers about cards, branches, savings and loans.</p>", [
        "/cards",
        "/branches",
        "/savings",
        "/loans",
      ]),
    );
    pages.set("/savings", bankPage("Savings", "<p>Our easy access saver pays 3.1 percent a year, paid monthly.</p>", ["/"]));
    pages.set("/loans", bankPage("Loans", "<p>Personal loans from 1,000 to 25,000 pounds over one to seven years.</p>", ["/"]));
    const site = await siteWith(pages);
    const bank = await crawlingTenant("Limited Bank");
    const source = await crawled(bank, `${site.url}/`);
    expect(await indexedPaths(source.id)).toEqual(["/", "/branches", "/cards", "/loans", "/savings"]);

    await app.graphql(UpdateCrawlSettingsDocument, { crawlMaxPages: 2 }, bank.apiKey);
    site.statuses.set("/cards", 404);
    expect(await resynced(bank, source.id)).toMatchObject({ status: "ready", pages: 2 });
    // Savings and loans were not reached this time: they are still part of the site as far as anyone knows.
    expect(await indexedPaths(source.id)).toEqual(["/", "/branches", "/loans", "/savings"]);
    const { report, progress } = await detail(bank, source.id);
    expect(report).toMatchObject({ stoppedBecause: "maxPages", complete: false });
    expect(progress).toMatchObject({ maxPages: 2 });
    expect(progress!.done).toBeLessThan(progress!.discovered);
  });

  it("keeps every chunk, and fails the source, when the crawl reads no page", async () => {
    const site = await siteWith();
    const bank = await crawlingTenant("Outage Bank");
    const source = await crawled(bank, `${site.url}/`);

    site.statuses.set("/", 503);
    const failed = await resynced(bank, source.id);
    expect(failed.status).toBe("failed");
    expect(failed.error).toBe(`No page could be read from ${site.url}/: HTTP 503 Service Unavailable`);
    expect(failed.chunks).toBe(source.chunks);
    expect(await indexedPaths(source.id)).toEqual(["/", "/branches", "/cards"]);
  });
});

describe("statuses and progress on the way", () => {
  it("shows a URL source crawling, with its progress in REST and GraphQL, until it is ready", async () => {
    const site = await siteWith();
    const bank = await crawlingTenant("Progress Bank");
    const release = site.hold("/cards");
    const added = await addSource(bank, { type: "url", source_url: `${site.url}/` });
    expect(added.progress).toBeNull();

    // The home page is read and /login answered 404; the crawl now waits for /cards, with /branches to come.
    let record: any;
    await expect
      .poll(async () => {
        record = (await app.request("/api/knowledge/sources", { key: bank.apiKey })).body.sources[0];
        return record.progress?.done;
      }, polling)
      .toBe(2);
    expect(record).toMatchObject({ status: "crawling", pages: 1, progress: { done: 2, discovered: 4, max_pages: 200 } });
    expect(await detail(bank, added.id)).toMatchObject({
      status: "crawling",
      pages: 1,
      progress: { done: 2, discovered: 4, maxPages: 200 },
    });

    release();
    const ready = await waitForSource(app, added.id, bank.apiKey);
    expect(ready).toMatchObject({ status: "ready", pages: 3, progress: { done: 4, discovered: 4, max_pages: 200 } });
  });

  it("announces each status and crawl progress live to the tenant's subscribers, and nothing to another tenant", async () => {
    const site = await siteWith();
    const bank = await crawlingTenant("Live Bank");
    const other = await crawlingTenant("Other Live Bank");
    const subscribe = (tenant: Tenant) =>
      openFeed(
        app,
        tenant.apiKey,
        { document: KnowledgeSourceChangedForTestDocument, topic: `knowledge:source:${tenant.tenantId}` },
        (data) => data.knowledgeSourceChanged,
      );
    const feed = await subscribe(bank);
    const elsewhere = await subscribe(other);
    const release = site.hold("/cards");
    const added = await addSource(bank, { type: "url", source_url: `${site.url}/` });
    await feed.next((source) => source?.id === added.id && source?.status === "crawling" && source?.progress?.done === 2);
    release();
    const ready = await feed.next((source) => source?.id === added.id && source?.status === "ready");
    expect(ready).toMatchObject({ pages: 3, progress: { done: 4, discovered: 4 } });
    expect(elsewhere.events).toEqual([]);
    feed.dispose();
    elsewhere.dispose();
  });

  it("shows a PDF indexing while its text is embedded", async () => {
    const bank = await app.tenant("Indexing Bank");
    const embedder = app.services.embedder;
    const embed = embedder.embed;
    let release!: () => void;
    const embedding = new Promise<void>((resolve) => (release = resolve));
    embedder.embed = async (texts) => {
      await embedding;
      return embed.call(embedder, texts);
    };
    try {
      const added = await addSource(bank, pdfForm(await pdfWithPages(["Overdrafts cost 5 pounds a month."]), "fees.pdf"));
      expect(added.status).toBe("pending");
      await expect
        .poll(async () => (await app.request("/api/knowledge/sources", { key: bank.apiKey })).body.sources[0].status, polling)
        .toBe("indexing");
      release();
      expect(await waitForSource(app, added.id, bank.apiKey)).toMatchObject({ status: "ready", pages: 1, progress: null });
    } finally {
      embedder.embed = embed;
    }
  });
});

describe("changing the embedder", () => {
  let fake: FakeOpenAI;
  beforeAll(async () => {
    fake = await startFakeOpenAI();
  });
  afterAll(() => fake?.close());

  it("re-embeds every chunk on the next resync, then reuses the new embeddings", async () => {
    const bank = await app.tenant("Switching Bank");
    const content = "Mortgage holidays\n\nYou may pause mortgage payments for up to six months once in the term of the loan.";
    const source = await addSource(bank, { type: "manual", title: "Mortgages", content });
    const hashing = app.services.embedder;
    const openai = createEmbedder(loadConfig({ OPENAI_API_KEY: fake.apiKey, OPENAI_BASE_URL: fake.url }));
    const embeddedTexts = () => fake.requests.filter((r) => r.path === "/v1/embeddings").flatMap((r) => r.body.input as string[]);

    app.services.embedder = openai;
    try {
      expect(await resynced(bank, source.id)).toMatchObject({ status: "ready", chunks: source.chunks });
      const chunks = await app.services.db.prisma.chunk.findMany({ where: { sourceId: source.id } });
      expect(chunks.map((c) => c.embedder)).toEqual(chunks.map(() => openai.name));
      expect(embeddedTexts().sort()).toEqual(chunks.map((c) => c.content).sort());

      fake.requests.length = 0;
      expect(await resynced(bank, source.id)).toMatchObject({ status: "ready" });
      expect(embeddedTexts()).toEqual([]);
    } finally {
      app.services.embedder = hashing;
    }
  });
});

describe("periodic resync", () => {
  it("queues a sync of the URL sources whose tenant's interval has passed since their last sync", async () => {
    const site = await siteWith();
    const periodic = await crawlingTenant("Periodic Bank", { resyncIntervalHours: 24 });
    const onDemand = await crawlingTenant("On-demand Bank");
    const due = await crawled(periodic, `${site.url}/`);
    const other = await crawled(onDemand, `${site.url}/`);
    const syncJobs = async (sourceId: string) =>
      app.services.db.prisma.job.count({ where: { queue: syncQueue, dedupeKey: sourceId } });

    expect(await runResyncCheck(app.services)).toBe(0);

    const dayAgo = new Date(Date.now() - 25 * 3600_000);
    await app.services.db.prisma.knowledgeSource.updateMany({
      where: { id: { in: [due.id, other.id] } },
      data: { lastSyncedAt: dayAgo },
    });
    expect(await runResyncCheck(app.services)).toBe(1);
    expect(await syncJobs(due.id)).toBe(2);
    expect(await syncJobs(other.id)).toBe(1);

    const resyncedSource = await waitForSource(app, due.id, periodic.apiKey);
    expect(resyncedSource.status).toBe("ready");
    expect(Date.parse(resyncedSource.last_synced_at)).toBeGreaterThan(dayAgo.getTime());
    // The check books the next one.
    const next = await app.services.db.prisma.job.findFirst({ where: { queue: scheduleQueue, status: "pending" } });
    expect(next?.runAt.getTime()).toBeGreaterThan(Date.now());
  });
});
