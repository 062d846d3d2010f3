import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BankSite, startBankSite } from "../fakes/bank-site.js";
import { type FakeOpenAI, startFakeOpenAI } from "../fakes/openai-server.js";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { pdfForm, pdfWithPages, scannedPdf, waitForSource as waitForSourceOf } from "../knowledge/knowledge-api.js";

let app: TestApp;
let site: BankSite;
let bank: { tenantId: string; apiKey: string };

const faq = `Card services

To reset your card PIN, open the mobile app, choose Cards, then Reset PIN. Your new PIN works at once for contactless and chip payments.

International transfers

You can send up to 25,000 euros a day abroad. Transfers in euros inside the SEPA area arrive the next working day and cost nothing.`;

const waitForSource = (id: string, key = bank.apiKey) => waitForSourceOf(app, id, key);

beforeAll(async () => {
  // The fake bank site listens on 127.0.0.1, opened to crawls as an operator opens an intranet.
  app = await startTestApp({ EGRESS_ALLOW_CIDRS: "127.0.0.0/8" });
  app.startWorker();
  site = await startBankSite();
  bank = await app.tenant("Knowledge Bank");
});
afterAll(async () => {
  await app?.close();
  await site?.close();
});

describe("manual sources", () => {
  it("indexes manual text before answering 201, and retrieval finds the right chunk with its source", async () => {
    const res = await app.request("/api/knowledge/sources", {
      key: bank.apiKey,
      body: { type: "manual", title: "Everyday banking FAQ", content: faq },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ type: "manual", title: "Everyday banking FAQ", status: "ready", pages: 1, progress: null });
    expect(res.body.chunks).toBeGreaterThan(0);
    expect(res.body.tokens).toBeGreaterThan(40);
    expect(res.body.id).toMatch(/^src_/);

    const search = await app.request("/api/knowledge", { key: bank.apiKey, body: { query: "How can I reset my PIN?", topK: 3 } });
    expect(search.status).toBe(200);
    expect(search.body.results[0]).toMatchObject({ source_id: res.body.id, source_title: "Everyday banking FAQ" });
    expect(search.body.results[0].text).toContain("Reset PIN");
    expect(search.body.results[0].similarity).toBeGreaterThan(0);
  });

  it.each([
    [{ type: "video", source_url: "https://example.com" }, "type"],
    [{ type: "url" }, "sourceUrl"],
    [{ type: "url", source_url: "ftp://example.com/faq" }, "sourceUrl"],
    [{ type: "url", source_url: "not a url" }, "sourceUrl"],
    [{ type: "manual", title: "Empty", content: "   " }, "content"],
    [{ type: "manual", content: "no title" }, "title"],
  ])("answers 422 VALIDATION for %j", async (body, field) => {
    const res = await app.request("/api/knowledge/sources", { key: bank.apiKey, body });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("VALIDATION");
    expect(res.body.details.map((d: { path: string }) => d.path)).toContain(field);
  });
});

describe("URL sources", () => {
  it("crawls the site as a job (202 pending → ready) without the boilerplate, then resyncs changes", async () => {
    const added = await app.request("/api/knowledge/sources", {
      key: bank.apiKey,
      body: { type: "url", source_url: `${site.url}/` },
    });
    expect(added.status).toBe(202);
    expect(added.body).toMatchObject({ type: "url", status: "pending", source_url: `${site.url}/` });
    const ready = await waitForSource(added.body.id);
    // The pages, and /login, which the navigation links to and answers 404.
    expect(ready).toMatchObject({ status: "ready", pages: 3, error: null, progress: { done: 4, discovered: 4, max_pages: 200 } });
    expect(ready.last_synced_at).toEqual(expect.any(String));

    const hours = await app.request("/api/knowledge", {
      key: bank.apiKey,
      body: { query: "When are branches open on Saturday?" },
    });
    expect(hours.body.results[0].url).toBe(`${site.url}/branches`);
    expect(hours.body.results[0].text).toContain("9am to 12.30pm");
    const chunks = await app.services.db.prisma.chunk.findMany({ where: { sourceId: added.body.id } });
    expect(chunks.map((c) => c.content).join(" ")).not.toContain("Cookie settings");

    // Resync: the branches page disappears, the cards page changes, the home page stays the same.
    site.pages.delete("/branches");
    site.pages.set("/cards", site.pages.get("/cards")!.replace("5 working days", "3 working days"));
    const embed = app.services.embedder.embed.bind(app.services.embedder);
    const embedded: string[] = [];
    app.services.embedder.embed = async (texts) => {
      embedded.push(...texts);
      return embed(texts);
    };
    try {
      const sync = await app.request("/api/knowledge/sources", {
        method: "PATCH",
        key: bank.apiKey,
        body: { id: added.body.id, action: "sync" },
      });
      expect(sync.status).toBe(202);
      expect(sync.body.status).toBe("pending");
      const resynced = await waitForSource(added.body.id);
      expect(resynced).toMatchObject({ status: "ready", pages: 2 });
    } finally {
      app.services.embedder.embed = embed;
    }
    expect(embedded.some((t) => t.includes("3 working days"))).toBe(true);
    expect(embedded.some((t) => t.includes("Welcome to the Example Bank help centre"))).toBe(false);
    const after = await app.services.db.prisma.chunk.findMany({ where: { sourceId: added.body.id } });
    expect(after.some((c) => c.url === `${site.url}/branches`)).toBe(false);
  });

  it("fails the source of an internal address the operator has not opened, with the reason (SSRF guard)", async () => {
    const added = await app.request("/api/knowledge/sources", {
      key: bank.apiKey,
      body: { type: "url", source_url: "http://169.254.169.254/latest/meta-data/" },
    });
    expect(added.status).toBe(202);
    const failed = await waitForSource(added.body.id);
    expect(failed).toMatchObject({ status: "failed", pages: 0 });
    expect(failed.error).toBe(
      "169.254.169.254 is a private or reserved address; the service does not connect to internal networks",
    );
  });
});

describe("PDF sources", () => {
  it("extracts an uploaded PDF as a job, keeping page numbers for citations", async () => {
    const pdf = await pdfWithPages(["Overdraft fees are 5 pounds a month.", "Savings accounts pay 4 percent interest a year."]);
    const res = await app.request("/api/knowledge/sources", { key: bank.apiKey, body: pdfForm(pdf, "tariffs.pdf") });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ type: "pdf", title: "tariffs", file_name: "tariffs.pdf", status: "pending" });
    const ready = await waitForSource(res.body.id);
    expect(ready).toMatchObject({ status: "ready", pages: 2 });
    const hit = await app.request("/api/knowledge", { key: bank.apiKey, body: { query: "savings interest rate" } });
    expect(hit.body.results[0]).toMatchObject({ source_id: res.body.id, page: 2 });
  });

  it("fails a scanned PDF (no text layer) with an error that says so", async () => {
    const res = await app.request("/api/knowledge/sources", { key: bank.apiKey, body: pdfForm(await scannedPdf(2), "scan.pdf") });
    expect(res.status).toBe(202);
    const failed = await waitForSource(res.body.id);
    expect(failed).toMatchObject({ status: "failed", chunks: 0 });
    expect(failed.error).toBe("The PDF has no extractable text — it may be a scanned document. Upload a PDF with a text layer.");
  });

  it("answers 422 for a file that is not a PDF and for a multipart body without a file", async () => {
    const form = new FormData();
    form.set("file", new Blob(["hello"], { type: "application/pdf" }), "fake.pdf");
    const notPdf = await app.request("/api/knowledge/sources", { key: bank.apiKey, body: form });
    expect(notPdf.status).toBe(422);
    expect(notPdf.body.details).toEqual([{ path: "file", message: "not a PDF" }]);
    const empty = new FormData();
    empty.set("title", "nothing");
    const noFile = await app.request("/api/knowledge/sources", { key: bank.apiKey, body: empty });
    expect(noFile.status).toBe(422);
  });

  it("answers 413 for a PDF over 20 MiB", async () => {
    const form = new FormData();
    form.set("file", new Blob([new Uint8Array(20 * 1024 * 1024 + 1)], { type: "application/pdf" }), "huge.pdf");
    const res = await app.request("/api/knowledge/sources", { key: bank.apiKey, body: form });
    expect(res.status).toBe(413);
    expect(res.body.code).toBe("VALIDATION");
  });
});

describe("listing, summary, deletion and isolation", () => {
  it("lists sources (x-api-key accepted), summarises them, and deletes a source with all its chunks", async () => {
    const created = await app.request("/api/knowledge/sources", {
      key: bank.apiKey,
      body: { type: "manual", title: "To delete", content: "Temporary notice about the mortgage helpline." },
    });
    const list = await app.request("/api/knowledge/sources", { headers: { "x-api-key": bank.apiKey } });
    expect(list.status).toBe(200);
    const record = list.body.sources.find((s: { id: string }) => s.id === created.body.id);
    expect(Object.keys(record).sort()).toEqual(
      [
        "chunks",
        "created_at",
        "error",
        "file_name",
        "id",
        "last_synced_at",
        "pages",
        "progress",
        "source_url",
        "status",
        "title",
        "tokens",
        "type",
      ].sort(),
    );
    const summary = await app.request("/api/knowledge", { key: bank.apiKey });
    expect(summary.body.sources).toBe(list.body.sources.length);
    expect(summary.body.by_status.ready).toBeGreaterThan(0);
    expect(summary.body.chunks).toBeGreaterThan(0);

    const deleted = await app.request(`/api/knowledge/sources?id=${created.body.id}`, { method: "DELETE", key: bank.apiKey });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ deleted: created.body.id, chunks: created.body.chunks });
    expect(await app.services.db.prisma.chunk.count({ where: { sourceId: created.body.id } })).toBe(0);
    const again = await app.request(`/api/knowledge/sources?id=${created.body.id}`, { method: "DELETE", key: bank.apiKey });
    expect(again.status).toBe(404);
    const search = await app.request("/api/knowledge", { key: bank.apiKey, body: { query: "mortgage helpline notice" } });
    expect(search.body.results.map((r: { source_id: string }) => r.source_id)).not.toContain(created.body.id);
  });

  it("never lets another tenant search, resync or delete this tenant's knowledge", async () => {
    const other = await app.tenant("Other Bank");
    const mine = await app.request("/api/knowledge/sources", {
      key: bank.apiKey,
      body: { type: "manual", title: "Secret", content: faq },
    });
    const search = await app.request("/api/knowledge", { key: other.apiKey, body: { query: "reset card PIN" } });
    expect(search.body.results).toEqual([]);
    const sync = await app.request("/api/knowledge/sources", {
      method: "PATCH",
      key: other.apiKey,
      body: { id: mine.body.id, action: "sync" },
    });
    expect(sync.status).toBe(404);
    const del = await app.request(`/api/knowledge/sources?id=${mine.body.id}`, { method: "DELETE", key: other.apiKey });
    expect(del.status).toBe(404);
    expect((await app.request("/api/knowledge/sources", { key: other.apiKey })).body.sources).toEqual([]);
  });

  it("lets viewers read but not change the knowledge base", async () => {
    const viewer = await app.keyFor(bank.tenantId, "viewer");
    expect((await app.request("/api/knowledge/sources", { key: viewer })).status).toBe(200);
    const add = await app.request("/api/knowledge/sources", { key: viewer, body: { type: "manual", title: "x", content: "y" } });
    expect(add.status).toBe(403);
    expect(add.body.code).toBe("FORBIDDEN");
    const patch = await app.request("/api/knowledge/sources", {
      method: "PATCH",
      key: bank.apiKey,
      body: { id: "src_x", action: "reindex" },
    });
    expect(patch.status).toBe(422);
  });
});

describe("when the embedding model fails", () => {
  let fake: FakeOpenAI;
  let modelApp: TestApp;
  let modelBank: { tenantId: string; apiKey: string };

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    modelApp = await startTestApp({ OPENAI_API_KEY: fake.apiKey, OPENAI_BASE_URL: fake.url });
    modelApp.startWorker();
    modelBank = await modelApp.tenant("Model Bank");
  });
  afterAll(async () => {
    await modelApp?.close();
    await fake?.close();
  });

  it("answers 502 EXTERNAL for manual text and lists the source as failed with the reason, until a resync indexes it", async () => {
    // The first request and each of the embedder's retries.
    const failure = { status: 500, headers: { "retry-after-ms": "1" } };
    fake.failNext(...Array.from({ length: 6 }, () => failure));
    const res = await modelApp.request("/api/knowledge/sources", {
      key: modelBank.apiKey,
      body: { type: "manual", title: "Everyday banking FAQ", content: faq },
    });
    expect(res.status).toBe(502);
    expect(res.body.code).toBe("EXTERNAL");

    const [source] = (await modelApp.request("/api/knowledge/sources", { key: modelBank.apiKey })).body.sources;
    expect(source).toMatchObject({ type: "manual", status: "failed", chunks: 0 });
    expect(source.error).toMatch(/^Embedding model text-embedding-3-small failed \(HTTP 500\)/);

    const sync = await modelApp.request("/api/knowledge/sources", {
      method: "PATCH",
      key: modelBank.apiKey,
      body: { id: source.id, action: "sync" },
    });
    expect(sync.status).toBe(202);
    expect(await waitForSourceOf(modelApp, source.id, modelBank.apiKey)).toMatchObject({ status: "ready", error: null });
  });
});
