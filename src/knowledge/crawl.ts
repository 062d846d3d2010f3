import { createHash } from "node:crypto";
import { type Egress, EgressRefusedError } from "../http/egress.js";
import type { DocumentReader } from "./extraction-pool.js";
import { type FetchSettings, fetchFollowing, normaliseUrl, readText, SkipError } from "./fetcher.js";
import { loadRobots, type RobotsRules, robotsUnavailable } from "./robots.js";
import { sitemapPages } from "./sitemap.js";

export interface CrawledPage {
  url: string;
  title: string;
  text: string;
  /** sha256 (hex) of `text`: a resync skips re-embedding pages whose hash has not changed. */
  contentHash: string;
  depth: number;
}

export interface CrawlOptions {
  /** Sends every request; refuses internal addresses unless the operator opened them. */
  egress: Egress;
  /** Reads each page off the event loop, within the operator's caps. */
  reader: Pick<DocumentReader, "html" | "sitemap">;
  maxPages?: number;
  maxDepth?: number;
  maxPageBytes?: number;
  timeBudgetMs?: number;
  requestTimeoutMs?: number;
  userAgent?: string;
  signal?: AbortSignal;
  maxRetries?: number;
  /** Told where the crawl stands, with its report so far, at its start and after each URL it handles. */
  onProgress?: (progress: CrawlProgress, report: Readonly<CrawlReport>) => void | Promise<void>;
}

export interface CrawlProgress {
  /** URLs handled so far: read, failed or skipped. */
  done: number;
  /** URLs found so far through links and sitemaps, handled or still waiting. */
  discovered: number;
  /** The most pages the crawl reads. */
  maxPages: number;
}

export interface CrawlReport {
  pages: number;
  errors: Array<{ url: string; error: string }>;
  skipped: Array<{ url: string; reason: string }>;
  /** URLs that answered 404 or 410 (also listed in `errors`): the site says these pages no longer exist. */
  gone: string[];
  stoppedBecause: "done" | "maxPages" | "timeBudget" | "aborted";
  /**
   * The crawl saw the whole site: it finished, and every page and sitemap it found was read, skipped
   * by rule, or gone. Only then is a page it did not reach known to be no longer part of the site.
   */
  complete: boolean;
}

/** A page the server says does not exist (any more). */
class PageGoneError extends Error {
  override name = "PageGoneError";
  constructor(
    message: string,
    readonly url: URL,
  ) {
    super(message);
  }
}

const goneStatuses = new Set([404, 410]);

/** The start URL itself may not be crawled; nothing was fetched. */
export class CrawlRefusedError extends Error {
  override name = "CrawlRefusedError";
}

const defaults = {
  maxPages: 200,
  maxDepth: 3,
  maxPageBytes: 5 * 1024 * 1024,
  timeBudgetMs: 10 * 60 * 1000,
  requestTimeoutMs: 15_000,
  userAgent: "ParleyBot/1.0 (+https://github.com/parley; knowledge-base crawler)",
  maxRetries: 3,
  onProgress: (() => {}) as NonNullable<CrawlOptions["onProgress"]>,
};

const htmlType = /^\s*(text\/html|application\/xhtml\+xml)\s*(;|$)/i;

interface QueuedPage {
  url: URL;
  depth: number;
}

/** www.bank.com and bank.com are one site, and so are its http and https URLs. */
function siteOf(url: URL): string {
  return `${url.hostname.replace(/^www\./, "")}:${url.port}`;
}

class Crawl {
  readonly report: CrawlReport = { pages: 0, errors: [], skipped: [], gone: [], stoppedBecause: "done", complete: false };
  // Set by anything that may have hidden pages from this crawl: a page or sitemap that could not be read.
  private unsure = false;
  private readonly sites = new Set<string>();
  private readonly seen = new Set<string>();
  private readonly queue: QueuedPage[] = [];
  private next = 0;
  private readonly robots = new Map<string, Promise<RobotsRules>>();
  private home: URL;

  constructor(
    start: URL,
    private readonly config: typeof defaults,
    private readonly reader: CrawlOptions["reader"],
    private readonly settings: FetchSettings,
    private readonly onPage: (page: CrawledPage) => Promise<void>,
  ) {
    this.home = start;
    this.sites.add(siteOf(start));
    this.enqueue([start.href], 0);
  }

  async run(userSignal: AbortSignal | undefined): Promise<CrawlReport> {
    try {
      await this.progress();
      await this.visit(this.queue[this.next++]!);
      await this.enqueueSitemapPages();
      await this.progress();
      while (this.next < this.queue.length && this.report.pages < this.config.maxPages) {
        await this.visit(this.queue[this.next++]!);
        await this.progress();
      }
      if (this.next < this.queue.length) this.report.stoppedBecause = "maxPages";
    } catch (error) {
      if (!this.settings.signal.aborted) throw error;
      this.report.stoppedBecause = userSignal?.aborted ? "aborted" : "timeBudget";
    }
    this.report.complete = this.report.stoppedBecause === "done" && this.report.pages > 0 && !this.unsure;
    return this.report;
  }

  private progress(): void | Promise<void> {
    return this.config.onProgress(
      { done: this.next, discovered: this.queue.length, maxPages: this.config.maxPages },
      this.report,
    );
  }

  private async visit({ url, depth }: QueuedPage): Promise<void> {
    this.settings.signal.throwIfAborted();
    const fetched = await this.fetchHtml(url, depth).catch((error: unknown) => this.record(url, depth, error));
    if (!fetched) return;
    const page = await this.reader.html(fetched.html, fetched.url.href).catch((error: unknown) => this.record(url, depth, error));
    if (!page) return;
    if (depth < this.config.maxDepth) this.enqueue(page.links, depth + 1);
    if (!page.text) {
      this.report.skipped.push({ url: fetched.url.href, reason: "no text" });
      return;
    }
    const contentHash = createHash("sha256").update(page.text).digest("hex");
    await this.onPage({ url: fetched.url.href, title: page.title, text: page.text, contentHash, depth });
    this.report.pages++;
  }

  private async fetchHtml(url: URL, depth: number): Promise<{ url: URL; html: string }> {
    const fetched = await fetchFollowing(url, this.settings, (hopUrl, hop) => this.admit(hopUrl, hop, depth));
    const { response } = fetched;
    if (!response.ok) {
      await response.body?.cancel();
      const message = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`;
      throw goneStatuses.has(response.status) ? new PageGoneError(message, fetched.url) : new Error(message);
    }
    if (!htmlType.test(response.headers.get("content-type") ?? "")) {
      await response.body?.cancel();
      throw new SkipError("not html");
    }
    if (depth === 0) this.home = fetched.url;
    return { url: fetched.url, html: await readText(response, this.config.maxPageBytes) };
  }

  /** Decides, before each request of a page and its redirects, whether the crawler may fetch `url`. */
  private async admit(url: URL, hop: number, depth: number): Promise<void> {
    if (hop > 0) {
      // Where the start URL redirects to (http to https, bank.com to bank.co.uk) is the site being crawled.
      if (depth === 0) this.sites.add(siteOf(url));
      if (!this.sites.has(siteOf(url))) throw new SkipError("redirects off the site");
      if (this.seen.has(url.href)) throw new SkipError("duplicate");
      this.seen.add(url.href);
    }
    const refusal = (await this.robotsOf(url)).refusal(url);
    if (refusal) throw new SkipError(refusal);
  }

  private robotsOf(url: URL): Promise<RobotsRules> {
    let rules = this.robots.get(url.origin);
    if (!rules) {
      rules = loadRobots(url.origin, this.settings);
      this.robots.set(url.origin, rules);
    }
    return rules;
  }

  private record(url: URL, depth: number, error: unknown): null {
    if (this.settings.signal.aborted) throw error;
    if (error instanceof EgressRefusedError) {
      // A start URL that is, or redirects to, an internal address refuses the whole crawl.
      if (depth === 0) throw new CrawlRefusedError(error.message);
      this.report.skipped.push({ url: url.href, reason: "private address" });
    } else if (error instanceof SkipError) {
      // A redirect to a page already crawled is not news to the administrator.
      if (error.reason !== "duplicate") this.report.skipped.push({ url: url.href, reason: error.reason });
      if (error.reason === robotsUnavailable) this.unsure = true;
    } else {
      this.report.errors.push({ url: url.href, error: (error as Error).message });
      if (error instanceof PageGoneError) this.report.gone.push(...new Set([url.href, error.url.href]));
      // A page that failed for another reason may still exist, and so may the pages only it links to.
      else this.unsure = true;
    }
    return null;
  }

  /** Only pages of this site, each once; external links are not followed (nor reported: there are many). */
  private enqueue(links: Iterable<string>, depth: number): void {
    for (const link of links) {
      if (!URL.canParse(link)) continue;
      const url = normaliseUrl(new URL(link));
      if (!/^https?:$/.test(url.protocol) || !this.sites.has(siteOf(url)) || this.seen.has(url.href)) continue;
      this.seen.add(url.href);
      this.queue.push({ url, depth });
    }
  }

  /** Pages only a sitemap knows about, as if linked from the start page. */
  private async enqueueSitemapPages(): Promise<void> {
    if (this.config.maxDepth < 1) return;
    const declared = (await this.robotsOf(this.home)).sitemaps.filter((href) => URL.canParse(href)).map((href) => new URL(href));
    const sitemaps = await sitemapPages(
      [new URL("/sitemap.xml", this.home), ...declared],
      this.settings,
      this.reader,
      this.config.maxPages * 10,
    );
    if (!sitemaps.complete) this.unsure = true;
    this.enqueue(
      sitemaps.pages.map((page) => page.href),
      1,
    );
  }
}

function startUrlOf(startUrl: string): URL {
  const url = URL.canParse(startUrl) ? new URL(startUrl) : null;
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
    throw new CrawlRefusedError(`${startUrl} is not an http(s) URL`);
  }
  return url;
}

/**
 * Crawls one site breadth-first from `startUrl` (and its sitemaps), politely: one request at a time,
 * robots.txt obeyed, a clear User-Agent, limits on pages, depth, size and time. Each page's main text goes
 * to `onPage` as it is read; pages that fail are recorded in the report, never fail the crawl.
 */
export async function crawlSite(
  startUrl: string,
  options: CrawlOptions,
  onPage: (page: CrawledPage) => Promise<void>,
): Promise<CrawlReport> {
  const config: typeof defaults = {
    maxPages: options.maxPages ?? defaults.maxPages,
    maxDepth: options.maxDepth ?? defaults.maxDepth,
    maxPageBytes: options.maxPageBytes ?? defaults.maxPageBytes,
    timeBudgetMs: options.timeBudgetMs ?? defaults.timeBudgetMs,
    requestTimeoutMs: options.requestTimeoutMs ?? defaults.requestTimeoutMs,
    userAgent: options.userAgent ?? defaults.userAgent,
    maxRetries: options.maxRetries ?? defaults.maxRetries,
    onProgress: options.onProgress ?? defaults.onProgress,
  };
  const start = startUrlOf(startUrl);
  const budget = AbortSignal.timeout(config.timeBudgetMs);
  const settings: FetchSettings = {
    userAgent: config.userAgent,
    requestTimeoutMs: config.requestTimeoutMs,
    maxBytes: config.maxPageBytes,
    maxRetries: config.maxRetries,
    egress: options.egress,
    signal: options.signal ? AbortSignal.any([options.signal, budget]) : budget,
  };
  return new Crawl(start, config, options.reader, settings, onPage).run(options.signal);
}
