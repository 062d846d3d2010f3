import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Egress } from "../../src/http/egress.js";
import {
  type CrawledPage,
  type CrawlOptions,
  type CrawlProgress,
  CrawlRefusedError,
  crawlSite,
} from "../../src/knowledge/crawl.js";
import { DocumentReader } from "../../src/knowledge/extraction-pool.js";

// The fixture sites listen on loopback addresses, which the operator opens for these crawls as for an intranet.
const egress = new Egress({ allowCidrs: ["127.0.0.0/8"] });
const reader = new DocumentReader({
  threads: 1,
  timeoutMs: 60_000,
  maxHeapMb: 512,
  limits: { maxChars: 5_000_000, maxPages: 2_000, maxDecompressedBytes: 256 * 1024 * 1024 },
});
afterAll(async () => {
  await reader.close();
  await egress.close();
});

const footerText = "Fixture Bank plc, registered in Fixtureland no. 0001";

/** A bank-like page: header navigation and a footer around a few paragraphs of real content. */
function page(title: string, body: string, links: string[] = []): string {
  const content = `${body} `.repeat(4);
  return `<!doctype html><html><head><title>${title}</title></head><body>
    <header><nav><a href="/">Home</a> <a href="/about">About us</a> <a href="/contact#form">Contact</a></nav></header>
    <main><h1>${title}</h1><p>${content}</p><p>${content}</p>
      <ul>${links.map((href) => `<li><a href="${href}">${href}</a></li>`).join("")}</ul></main>
    <footer><p>${footerText}</p><a href="/about">About us</a></footer>
  </body></html>`;
}

const lorem = (topic: string) =>
  `This page explains ${topic} at Fixture Bank, with the fees, limits and eligibility rules that apply to customers.`;

class FixtureSite {
  readonly requests: Array<{ path: string; userAgent: string | undefined }> = [];
  private server: Server = createServer((req, res) => this.handle(req, res));
  private busyAnswered = false;
  origin = "";

  async start(host = "127.0.0.1", port = 0): Promise<void> {
    this.server.listen(port, host);
    await once(this.server, "listening");
    this.origin = `http://${host}:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    // fetch keeps connections alive; without this, close() would wait for them to time out.
    this.server.closeAllConnections();
    return closed;
  }

  get port(): string {
    return new URL(this.origin).port;
  }

  hits(path: string): number {
    return this.requests.filter((request) => request.path === path).length;
  }

  private routes: Record<string, (res: ServerResponse) => void | Promise<void>> = {
    "/": (res) =>
      html(
        res,
        page("Fixture Bank", lorem("personal banking"), [
          "/accounts/",
          "/level-1",
          "/broken",
          "/busy",
          "/loop-a",
          "/private/staff-rates",
          "/brochure.pdf",
          "/old-about",
          "https://external.example.org/partner-offer",
        ]),
      ),
    "/about": (res) => html(res, page("About us", lorem("our history"))),
    "/intranet-link": (res) => html(res, page("Staff", lorem("staff tools"), [`http://www.localhost:${this.port}/intranet`])),
    "/to-intranet": (res) => redirect(res, `http://127.0.0.1:${this.port}/about`),
    "/contact": (res) => html(res, page("Contact", lorem("how to reach us"))),
    "/accounts/": (res) => html(res, page("Accounts", lorem("current accounts"), ["savings", "savings?tier=gold"])),
    "/accounts/savings": (res) => html(res, page("Savings", lorem("savings accounts"))),
    "/accounts/savings?tier=gold": (res) => html(res, page("Gold savings", lorem("the gold savings tier"))),
    "/level-1": (res) => html(res, page("Level 1", lorem("loans"), ["/level-2"])),
    "/level-2": (res) => html(res, page("Level 2", lorem("personal loans"), ["/level-3"])),
    "/level-3": (res) => html(res, page("Level 3", lorem("loan repayments"), ["/level-4"])),
    "/level-4": (res) => html(res, page("Level 4", lorem("early repayment"))),
    "/only-in-sitemap": (res) => html(res, page("Mortgage rates", lorem("mortgage rates"))),
    "/only-in-robots-sitemap": (res) => html(res, page("Branch finder", lorem("branches"))),
    "/private/staff-rates": (res) => html(res, page("Staff rates", lorem("staff-only rates"))),
    "/broken": (res) => {
      res.writeHead(500).end("Internal Server Error");
    },
    "/busy": (res) => {
      if (this.busyAnswered) return html(res, page("Busy page", lorem("card limits")));
      this.busyAnswered = true;
      res.writeHead(429, { "retry-after": "1" }).end("Too Many Requests");
    },
    "/loop-a": (res) => redirect(res, "/loop-b"),
    "/loop-b": (res) => redirect(res, `${this.origin}/loop-a`),
    "/old-about": (res) => redirect(res, "/about"),
    "/brochure.pdf": (res) => {
      res.writeHead(200, { "content-type": "application/pdf" }).end("%PDF-1.4 not really");
    },
    "/gone-links": (res) => html(res, page("Moved pages", lorem("pages that moved"), ["/nowhere", "/moved-away"])),
    "/moved-away": (res) => redirect(res, "/vanished"),
    "/vanished": (res) => {
      res.writeHead(410, { "content-type": "text/html" }).end("<p>This page has been removed.</p>");
    },
    "/big-pages": (res) => html(res, page("Brochures", lorem("brochures"), ["/large", "/large-streamed", "/contact"])),
    // Declares its size: refused before reading its body.
    "/large": (res) => {
      const body = page("Terms", lorem("terms and conditions").repeat(200));
      res.writeHead(200, { "content-type": "text/html; charset=utf-8", "content-length": Buffer.byteLength(body) }).end(body);
    },
    // Written in parts, so sent chunked without a Content-Length: the size is only known while reading.
    "/large-streamed": (res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      for (let part = 0; part < 50; part++) res.write(`<p>${lorem("tariffs").repeat(10)}</p>`);
      res.end();
    },
    // Never answers: a crawl that reads it ends only by giving up on it.
    "/slow": () => undefined,
    "/robots.txt": (res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end(`User-agent: *\nDisallow: /private/\n\nSitemap: ${this.origin}/robots-sitemap.xml\n`);
    },
    "/sitemap.xml": (res) =>
      xml(
        res,
        `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${this.origin}/pages.xml</loc></sitemap></sitemapindex>`,
      ),
    "/pages.xml": (res) =>
      xml(
        res,
        `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${this.origin}/</loc></url>` +
          `<url><loc>${this.origin}/only-in-sitemap</loc></url></urlset>`,
      ),
    "/robots-sitemap.xml": (res) =>
      xml(
        res,
        `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${this.origin}/only-in-robots-sitemap</loc></url></urlset>`,
      ),
  };

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = req.url ?? "/";
    this.requests.push({ path, userAgent: req.headers["user-agent"] });
    const route = this.routes[path];
    if (route) await route(res);
    else res.writeHead(404, { "content-type": "text/html" }).end("<html><body><p>Not found</p></body></html>");
  }
}

function html(res: ServerResponse, body: string): void {
  res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(body);
}

function xml(res: ServerResponse, body: string): void {
  res.writeHead(200, { "content-type": "application/xml" }).end(`<?xml version="1.0" encoding="UTF-8"?>${body}`);
}

function redirect(res: ServerResponse, location: string): void {
  res.writeHead(302, { location }).end();
}

async function crawl(site: FixtureSite, options: Partial<CrawlOptions> = {}, path = "/") {
  const pages: CrawledPage[] = [];
  const report = await crawlSite(`${site.origin}${path}`, { egress, reader, maxRetries: 2, ...options }, async (p) => {
    pages.push(p);
  });
  const byPath = new Map(pages.map((p) => [p.url.slice(site.origin.length), p]));
  return { report, pages, byPath };
}

describe("crawlSite on a local fixture site", () => {
  const site = new FixtureSite();
  let result: Awaited<ReturnType<typeof crawl>>;
  let elapsedMs = 0;

  beforeAll(async () => {
    await site.start();
    const started = performance.now();
    result = await crawl(site, { maxDepth: 2 });
    elapsedMs = performance.now() - started;
  });
  afterAll(() => site.stop());

  it("crawls the site breadth-first and reports each page once, with depth", () => {
    const { report, byPath } = result;
    expect([...byPath.keys()].sort()).toEqual(
      [
        "/",
        "/about",
        "/accounts/",
        "/accounts/savings",
        "/accounts/savings?tier=gold",
        "/busy",
        "/contact",
        "/level-1",
        "/level-2",
        "/only-in-robots-sitemap",
        "/only-in-sitemap",
      ].sort(),
    );
    expect(report).toMatchObject({ pages: 11, stoppedBecause: "done" });
    expect(byPath.get("/")?.depth).toBe(0);
    expect(byPath.get("/accounts/savings")?.depth).toBe(2);
    expect(result.pages[0]!.url).toBe(`${site.origin}/`);
  });

  it("extracts the main text without navigation or footer", () => {
    const home = result.byPath.get("/")!;
    expect(home.title).toBe("Fixture Bank");
    expect(home.text).toContain("This page explains personal banking at Fixture Bank");
    expect(home.text).not.toContain(footerText);
    expect(home.text).not.toContain("About us");
  });

  it("gives each page the sha256 of its text", async () => {
    const { createHash } = await import("node:crypto");
    for (const p of result.pages) expect(p.contentHash).toBe(createHash("sha256").update(p.text).digest("hex"));
  });

  it("stops following links below maxDepth", () => {
    expect(result.byPath.has("/level-2")).toBe(true);
    expect(site.hits("/level-3")).toBe(0);
  });

  it("reads sitemap index files and the sitemaps robots.txt declares", () => {
    expect(result.byPath.get("/only-in-sitemap")?.title).toBe("Mortgage rates");
    expect(result.byPath.get("/only-in-robots-sitemap")?.title).toBe("Branch finder");
  });

  it("obeys robots.txt", () => {
    expect(site.hits("/private/staff-rates")).toBe(0);
    expect(result.report.skipped).toContainEqual({ url: `${site.origin}/private/staff-rates`, reason: "robots.txt" });
  });

  it("sends its User-Agent with every request", () => {
    expect(site.requests.length).toBeGreaterThan(10);
    for (const request of site.requests) expect(request.userAgent).toMatch(/^ParleyBot\/1\.0 /);
  });

  it("records a page that keeps failing with 500 after retrying it, and crawls the rest", () => {
    expect(result.report.errors).toContainEqual({ url: `${site.origin}/broken`, error: "HTTP 500 Internal Server Error" });
    expect(site.hits("/broken")).toBe(3);
  });

  it("waits as long as Retry-After asks after a 429, then reads the page", () => {
    expect(site.hits("/busy")).toBe(2);
    expect(result.byPath.get("/busy")?.title).toBe("Busy page");
    expect(elapsedMs).toBeGreaterThanOrEqual(1000);
  });

  it("records a redirect loop as an error instead of following it forever", () => {
    const loop = result.report.errors.find((error) => error.url === `${site.origin}/loop-a`);
    expect(loop?.error).toMatch(/redirect loop/);
    expect(site.hits("/loop-a")).toBe(1);
    expect(site.hits("/loop-b")).toBe(1);
  });

  it("skips resources that are not HTML", () => {
    expect(result.report.skipped).toContainEqual({ url: `${site.origin}/brochure.pdf`, reason: "not html" });
  });

  it("does not follow links to other sites", () => {
    const mentioned = JSON.stringify(result.report);
    expect(mentioned).not.toContain("external.example.org");
  });

  it("never requests a URL twice, whatever links, redirects and sitemaps lead to it", () => {
    const retried = new Set(["/broken", "/busy"]);
    const paths = site.requests.map((request) => request.path).filter((path) => !retried.has(path));
    expect(paths.length).toBe(new Set(paths).size);
    // /old-about redirects to /about, which was crawled already: neither an error nor a second page.
    expect(result.pages.filter((p) => p.title === "About us")).toHaveLength(1);
  });

  it("stops at maxPages", async () => {
    const { report, pages } = await crawl(site, { maxPages: 3 });
    expect(pages).toHaveLength(3);
    expect(report).toMatchObject({ pages: 3, stoppedBecause: "maxPages", complete: false });
  });

  it("tells pages that answered 404 or 410 from pages that failed, and says whether it saw the whole site", async () => {
    const { report } = await crawl(site, { maxDepth: 1 }, "/gone-links");
    expect(report.gone.sort()).toEqual([`${site.origin}/moved-away`, `${site.origin}/nowhere`, `${site.origin}/vanished`]);
    expect(report.errors).toContainEqual({ url: `${site.origin}/moved-away`, error: "HTTP 410 Gone" });
    expect(report.complete).toBe(true);
    // The main crawl met /broken, which may well still exist and link to pages of its own.
    expect(result.report).toMatchObject({ gone: [], complete: false });
  });

  it("records a page larger than maxPageBytes as that page's error, whether its size is declared or not, and reads the rest", async () => {
    const { report, byPath } = await crawl(site, { maxPageBytes: 8 * 1024, maxDepth: 1 }, "/big-pages");
    expect(report.errors).toContainEqual({ url: `${site.origin}/large`, error: "larger than 8 KiB" });
    expect(report.errors).toContainEqual({ url: `${site.origin}/large-streamed`, error: "larger than 8 KiB" });
    expect(byPath.get("/contact")?.title).toBe("Contact");
    expect(report).toMatchObject({ stoppedBecause: "done", complete: false });
  });

  it("reports its progress at its start and after each URL it handles", async () => {
    const steps: CrawlProgress[] = [];
    const { report } = await crawl(site, { maxDepth: 1, onProgress: (progress) => void steps.push(progress) }, "/gone-links");
    expect(steps[0]).toEqual({ done: 0, discovered: 1, maxPages: 200 });
    for (const [i, step] of steps.entries()) {
      expect(step.done).toBeLessThanOrEqual(step.discovered);
      if (i > 0) expect(step.done).toBe(steps[i - 1]!.done + 1);
    }
    const last = steps.at(-1)!;
    expect(last.done).toBe(last.discovered);
    expect(last.done).toBe(report.pages + report.errors.length + report.skipped.length);
  });

  it("stops when its signal is aborted", async () => {
    const controller = new AbortController();
    const report = await crawlSite(`${site.origin}/`, { egress, reader, signal: controller.signal }, async () => {
      controller.abort();
    });
    expect(report).toMatchObject({ pages: 1, stoppedBecause: "aborted" });
  });

  it("stops when its time budget is spent, even in the middle of a request", async () => {
    const { report } = await crawl(site, { timeBudgetMs: 300 }, "/slow");
    expect(report).toMatchObject({ pages: 0, stoppedBecause: "timeBudget", complete: false });
  });

  it("gives up on a request that takes longer than requestTimeoutMs", async () => {
    const { report } = await crawl(site, { requestTimeoutMs: 200, maxDepth: 0 }, "/slow");
    expect(report.errors).toEqual([{ url: `${site.origin}/slow`, error: "no answer within 0.2 s" }]);
    expect(report.stoppedBecause).toBe("done");
  });
});

describe("server-side request forgery guard", () => {
  const site = new FixtureSite();
  // The operator's setting as it is by default: no internal range open.
  const closed = new Egress({ allowCidrs: [] });
  beforeAll(() => site.start());
  afterAll(async () => {
    await site.stop();
    await closed.close();
  });

  it("refuses a start URL on a loopback address, by address or by name, unless the operator opened it", async () => {
    await expect(crawlSite(`${site.origin}/`, { egress: closed, reader }, async () => {})).rejects.toThrow(CrawlRefusedError);
    await expect(crawlSite(`http://localhost:${site.port}/`, { egress: closed, reader }, async () => {})).rejects.toThrow(
      /localhost resolves to (127\.0\.0\.1|::1), a private or reserved address/,
    );
    expect(site.requests).toEqual([]);
  });

  it("skips a link whose host resolves to a private address, on a site whose address is open", async () => {
    const names: Record<string, string> = { localhost: "127.0.0.1", "www.localhost": "10.1.2.3" };
    const named = new Egress({ allowCidrs: ["127.0.0.1/32"], resolver: async (host) => [{ address: names[host]!, family: 4 }] });
    try {
      const pages: string[] = [];
      const report = await crawlSite(
        `http://localhost:${site.port}/intranet-link`,
        { egress: named, reader, maxDepth: 1 },
        async (p) => {
          pages.push(p.url);
        },
      );
      expect(pages[0]).toBe(`http://localhost:${site.port}/intranet-link`);
      // www.localhost is the same site as localhost, so the link was followed as far as the address check.
      expect(report.skipped).toContainEqual({ url: `http://www.localhost:${site.port}/intranet`, reason: "private address" });
    } finally {
      await named.close();
    }
  });

  it("refuses a start URL that redirects from an open address to an internal one, without requesting it", async () => {
    const internal = new FixtureSite();
    await internal.start();
    const open = new FixtureSite();
    await open.start("127.0.0.2", Number(internal.port));
    const onlyOpen = new Egress({ allowCidrs: ["127.0.0.2/32"] });
    try {
      await expect(crawlSite(`${open.origin}/to-intranet`, { egress: onlyOpen, reader }, async () => {})).rejects.toThrow(
        /127\.0\.0\.1 is a private or reserved address/,
      );
      expect(open.hits("/to-intranet")).toBe(1);
      expect(internal.requests).toEqual([]);
    } finally {
      await Promise.all([open.stop(), internal.stop()]);
      await onlyOpen.close();
    }
  });

  it.each(["file:///etc/passwd", "gopher://127.0.0.1:70/1", "ftp://127.0.0.1/pub"])(
    "refuses a start URL that is not http(s): %s",
    async (url) => {
      await expect(crawlSite(url, { egress, reader }, async () => {})).rejects.toThrow(CrawlRefusedError);
    },
  );
});
