import { Readability } from "@mozilla/readability";
import { type CheerioAPI, load } from "cheerio";
import type { AnyNode, Element } from "domhandler";
import { parseHTML } from "linkedom";
import { decodedSize } from "./pdf-streams.js";

/** Why a document gave no text, worded for the bank administrator who added it. */
export class ExtractionError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "ExtractionError";
  }
}

export interface ExtractedHtml {
  title: string;
  text: string;
  links: string[];
}

export interface ExtractedSitemap {
  pages: string[];
  sitemaps: string[];
}

export interface ExtractedPdf {
  title: string | null;
  pages: Array<{ page: number; text: string }>;
}

/** The operator's caps on one untrusted document (EXTRACT_MAX_* settings). */
export interface ExtractionLimits {
  maxChars: number;
  maxPages: number;
  maxDecompressedBytes: number;
}

const mib = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MiB`;
const tooMuchText = (limits: ExtractionLimits) =>
  new ExtractionError(
    `The document has more than ${limits.maxChars.toLocaleString("en")} characters of text, the most this service reads.`,
  );

/** A PDF that decodes to more than the cap, found before reading it (pdf-streams.ts) or while reading it (allocation-meter.ts). */
export const decompressionBomb = (limits: Pick<ExtractionLimits, "maxDecompressedBytes">) =>
  new ExtractionError(
    `The PDF decompresses to more than ${mib(limits.maxDecompressedBytes)}, the most this service reads; it may be a decompression bomb.`,
  );

const skipped = new Set(["nav", "script", "style", "noscript", "template", "svg", "canvas", "iframe", "button", "select"]);
const blocks = new Set([
  "address",
  "article",
  "aside",
  "blockquote",
  "caption",
  "dd",
  "div",
  "dl",
  "dt",
  "figcaption",
  "figure",
  "footer",
  "form",
  "header",
  "hr",
  "li",
  "main",
  "nav",
  "ol",
  "p",
  "pre",
  "section",
  "table",
  "tr",
  "ul",
]);
const boilerplate = [
  "nav, header, footer, aside, script, style, noscript, template",
  "[role=navigation], [role=banner], [role=contentinfo], [role=search], [aria-hidden=true]",
  ".nav, .navbar, .menu, .breadcrumb, .breadcrumbs, .footer, .site-footer, .site-header, .cookie-banner, #cookie-banner",
].join(", ");
// Below Readability's own threshold it has found no article and returns its best guess, often the whole body.
const minArticleChars = 500;

const squash = (text: string) => text.replace(/\s+/g, " ").trim();
const isElement = (node: AnyNode): node is Element => "name" in node && "children" in node;

/**
 * Plain text of a DOM fragment: one paragraph per block element, headings as "# " lines (the chunker
 * splits on them), table cells separated by " | " so a row of a fee table still reads as a row.
 */
function blockText(nodes: AnyNode[]): string {
  const paragraphs: string[] = [];
  let line = "";
  const flush = (prefix = "") => {
    const text = squash(line);
    if (text) paragraphs.push(prefix + text);
    line = "";
  };
  const visit = (node: AnyNode): void => {
    if (node.type === "text") {
      line += node.data;
      return;
    }
    if (!isElement(node) || skipped.has(node.name)) return;
    if (/^h[1-6]$/.test(node.name)) {
      flush();
      node.children.forEach(visit);
      flush("# ");
      return;
    }
    if (node.name === "br") line += " ";
    if ((node.name === "td" || node.name === "th") && squash(line)) line += " | ";
    const isBlock = blocks.has(node.name);
    if (isBlock) flush();
    node.children.forEach(visit);
    if (isBlock) flush();
  };
  nodes.forEach(visit);
  flush();
  return paragraphs.join("\n\n");
}

function readableText(html: string, url: string): { title: string; text: string } | null {
  const { document } = parseHTML(html);
  if (!document.documentElement) return null;
  // Readability resolves relative links against the document's URL; linkedom has none unless we give it one.
  Object.defineProperty(document, "baseURI", { value: url });
  let article: ReturnType<Readability["parse"]>;
  try {
    article = new Readability(document as unknown as Document).parse();
  } catch {
    // Readability gives up on some malformed documents; the plain fallback still reads them.
    return null;
  }
  if (!article?.content || (article.length ?? 0) < minArticleChars) return null;
  const text = blockText(load(article.content).root().toArray());
  return text ? { title: squash(article.title ?? ""), text } : null;
}

/** The body without the usual boilerplate, for pages too short or too unusual for Readability. */
function fallbackText($: CheerioAPI): string {
  $(boilerplate).remove();
  return blockText($("body").toArray());
}

function absoluteLinks($: CheerioAPI, url: string): string[] {
  const base = resolve($("base[href]").first().attr("href"), url) ?? url;
  const links = new Set<string>();
  $("a[href]").each((_, anchor) => {
    const link = resolve($(anchor).attr("href"), base);
    if (link) links.add(link);
  });
  return [...links];
}

function resolve(href: string | undefined, base: string): string | null {
  if (!href) return null;
  try {
    const url = new URL(href.trim(), base);
    if (url.protocol !== "http:" && url.protocol !== "https:") return null;
    url.hash = "";
    return url.href;
  } catch {
    return null;
  }
}

/** Main text of a web page, without its navigation and footer, and the http(s) links it makes. */
export function extractHtml(html: string, url: string, limits: Pick<ExtractionLimits, "maxChars">): ExtractedHtml {
  const $ = load(html);
  const links = absoluteLinks($, url);
  const pageTitle = squash($("title").first().text()) || squash($("h1").first().text());
  const article = readableText(html, url);
  const text = article?.text ?? fallbackText($);
  if (text.length > limits.maxChars) throw tooMuchText(limits as ExtractionLimits);
  return { title: article?.title || pageTitle || url, text, links };
}

/** The page URLs a sitemap lists, and the sitemaps a sitemap index lists. */
export function extractSitemap(xml: string): ExtractedSitemap {
  const $ = load(xml, { xml: true });
  const locs = (selector: string) =>
    $(selector)
      .map((_, loc) => $(loc).text().trim())
      .get()
      .filter(Boolean);
  return { pages: locs("urlset > url > loc"), sitemaps: locs("sitemapindex > sitemap > loc") };
}

function isPdf(bytes: Uint8Array): boolean {
  // The PDF specification lets readers accept the header anywhere in the first kilobyte.
  return Buffer.from(bytes.subarray(0, 1024)).includes("%PDF-");
}

function pageText(text: string): string {
  return text
    .split("\n")
    .map(squash)
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

async function openPdf(bytes: Uint8Array) {
  // pdf.js is loaded with the first PDF: a thread that only reads web pages starts without it.
  const { getDocumentProxy } = await import("unpdf");
  try {
    // pdf.js may take ownership of (detach) the buffer it is given; the caller's bytes stay usable.
    return await getDocumentProxy(bytes.slice(), { verbosity: 0 });
  } catch (error) {
    if ((error as Error).name === "PasswordException") {
      throw new ExtractionError("The PDF is password-protected; upload a copy without a password.", { cause: error });
    }
    throw new ExtractionError("The PDF could not be read; it may be damaged.", { cause: error });
  }
}

/** One page's text as pdf.js lays it out: items in reading order, a line break where pdf.js marks one. */
async function textOfPage(pdf: Awaited<ReturnType<typeof openPdf>>, number: number): Promise<string> {
  const content = await (await pdf.getPage(number)).getTextContent();
  return content.items.map((item) => ("str" in item ? item.str + (item.hasEOL ? "\n" : "") : "")).join("");
}

/**
 * Text of each page of a PDF, numbered from 1 so answers can cite the page. Refuses, before pdf.js
 * decodes anything, a file whose streams decompress beyond the cap (a decompression bomb), then one
 * with too many pages, and stops reading once the text passes its cap. `beforePage` is told of each page
 * before it is read.
 */
export async function extractPdf(
  bytes: Uint8Array,
  limits: ExtractionLimits,
  beforePage: (page: number) => void = () => undefined,
): Promise<ExtractedPdf> {
  if (!isPdf(bytes)) throw new ExtractionError("The file is not a PDF.");
  if ((await decodedSize(bytes, limits.maxDecompressedBytes)) > limits.maxDecompressedBytes) throw decompressionBomb(limits);
  const pdf = await openPdf(bytes);
  try {
    if (pdf.numPages > limits.maxPages) {
      throw new ExtractionError(`The PDF has ${pdf.numPages} pages; this service reads at most ${limits.maxPages}.`);
    }
    const { info } = await pdf.getMetadata().catch(() => ({ info: {} as Record<string, unknown> }));
    const pages: ExtractedPdf["pages"] = [];
    let chars = 0;
    for (let number = 1; number <= pdf.numPages; number++) {
      beforePage(number);
      const text = pageText(await textOfPage(pdf, number));
      chars += text.length;
      if (chars > limits.maxChars) throw tooMuchText(limits);
      pages.push({ page: number, text });
    }
    if (pages.every((page) => page.text === "")) {
      throw new ExtractionError(
        "The PDF has no extractable text — it may be a scanned document. Upload a PDF with a text layer.",
      );
    }
    const title = typeof (info as { Title?: unknown }).Title === "string" ? squash((info as { Title: string }).Title) : "";
    return { title: title || null, pages: pages.filter((page) => page.text !== "") };
  } finally {
    await pdf.destroy();
  }
}
