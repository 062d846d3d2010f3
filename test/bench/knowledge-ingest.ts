import { setTimeout as sleep } from "node:timers/promises";
import { scopeToTenant } from "../../src/db/tenant-scope.js";
import { addManualSource } from "../../src/knowledge/sources.js";
import { startBankSite } from "../fakes/bank-site.js";
import { UpdateCrawlSettingsDocument } from "../generated.js";
import type { TestApp } from "../helpers/app.js";
import { manualText } from "./bank-text.js";
import { type BenchDatabase, benchDatabases, fixed, noteRow, numberFrom, startBenchApp, thousands } from "./harness.js";
import { helpSite } from "./help-site.js";

const manualBytes = numberFrom("BENCH_MANUAL_BYTES", 1_000_000);
const sitePages = numberFrom("BENCH_SITE_PAGES", 200);

interface Ingested {
  pages: number;
  chunks: number;
  tokens: number;
  seconds: number;
}

function row(source: string, database: BenchDatabase, bytes: number, result: Ingested): string {
  return (
    `| ${source} | ${database.name} | ${result.pages} | ${thousands(Math.round(bytes / 1000))} | ${thousands(result.chunks)} ` +
    `| ${thousands(result.tokens)} | ${fixed(result.seconds, 1)} | ${fixed(result.chunks / result.seconds, 0)} |`
  );
}

/** What POST /api/knowledge/sources does for manual text (chunk, embed, write, index) before it answers 201. */
async function ingestManual(app: TestApp, tenantId: string, text: string): Promise<Ingested> {
  const started = performance.now();
  const source = await addManualSource(app.services, scopeToTenant(app.services.db.prisma, tenantId), tenantId, "Manual", text);
  return { ...source, seconds: (performance.now() - started) / 1000 };
}

/** A URL source through the API and the sync job on the service's worker, from the 202 to `ready`. */
async function ingestSite(app: TestApp, apiKey: string, url: string): Promise<Ingested> {
  const started = performance.now();
  const added = await app.request("/api/knowledge/sources", { key: apiKey, body: { type: "url", source_url: url } });
  if (added.status !== 202) throw new Error(`adding the site failed: ${added.status} ${JSON.stringify(added.body)}`);
  for (;;) {
    const list = await app.request("/api/knowledge/sources", { key: apiKey });
    const source = list.body.sources.find((s: { id: string }) => s.id === added.body.id);
    if (source.status === "failed") throw new Error(`the crawl failed: ${source.error}`);
    if (source.status === "ready") return { ...source, seconds: (performance.now() - started) / 1000 };
    await sleep(50);
  }
}

/**
 * Ingest throughput through the service's own code: a manual text of 1 MB, and a local help site
 * of 200 pages crawled by the sync job (robots.txt, extraction, chunking, embedding, writing).
 */
export async function benchKnowledgeIngest(): Promise<void> {
  const { databases, unreachable } = await benchDatabases();
  const manual = manualText(manualBytes);
  const pages = helpSite(sitePages);
  const siteBytes = [...pages.values()].reduce((n, html) => n + Buffer.byteLength(html), 0);
  const site = await startBankSite(pages);
  console.log("\n### Ingest (offline embedder)\n");
  console.log("| source | database | pages | size (kB) | chunks | tokens | time (s) | chunks/s |");
  console.log("|---|---|---:|---:|---:|---:|---:|---:|");
  try {
    for (const database of databases) {
      // The site is on 127.0.0.1, which the service refuses to fetch unless the operator opens it (SSRF guard).
      const app = await startBenchApp(database, { EGRESS_ALLOW_CIDRS: "127.0.0.0/8" });
      try {
        app.startWorker();
        const { tenantId, apiKey } = await app.tenant("Bench Bank");
        await app.graphql(UpdateCrawlSettingsDocument, { crawlMaxPages: sitePages }, apiKey);
        console.log(row("manual text", database, Buffer.byteLength(manual), await ingestManual(app, tenantId, manual)));
        console.log(row("web site", database, siteBytes, await ingestSite(app, apiKey, `${site.url}/`)));
      } finally {
        await app.close();
      }
    }
  } finally {
    await site.close();
  }
  if (unreachable) console.log(noteRow(8, 1, unreachable));
}
