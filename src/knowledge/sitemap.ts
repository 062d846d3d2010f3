import { gunzipSync } from "node:zlib";
import type { ExtractedSitemap } from "./extract.js";
import type { DocumentReader } from "./extraction-pool.js";
import { type FetchSettings, fetchFollowing, readBody } from "./fetcher.js";

// Sitemap index files may nest and fan out; a bank's site is covered long before these limits.
const maxSitemaps = 20;
const maxSitemapBytes = 10 * 1024 * 1024;

export interface SitemapPages {
  pages: URL[];
  /** False when a sitemap could not be read (other than missing) or a limit cut the list short. */
  complete: boolean;
}

type SitemapReader = Pick<DocumentReader, "sitemap">;

/** A sitemap that answered with a server error: it may list pages the crawl does not know of. */
class SitemapUnreadable extends Error {}

async function fetchSitemap(url: URL, settings: FetchSettings, reader: SitemapReader): Promise<ExtractedSitemap> {
  const { response } = await fetchFollowing(url, settings);
  if (!response.ok) {
    await response.body?.cancel();
    // A missing sitemap (4xx) is the usual case and lists nothing; a server error may hide pages.
    if (response.status >= 500) throw new SitemapUnreadable(`HTTP ${response.status}`);
    return { pages: [], sitemaps: [] };
  }
  const body = await readBody(response, maxSitemapBytes);
  // sitemap.xml.gz is served as a gzip file, not with a gzip Content-Encoding that fetch would undo.
  const xml = body[0] === 0x1f && body[1] === 0x8b ? gunzipSync(body, { maxOutputLength: maxSitemapBytes }) : body;
  return reader.sitemap(xml.toString("utf8"));
}

/**
 * Page URLs listed by the given sitemaps and the sitemap index files they lead to. A sitemap that is
 * missing or unreadable adds nothing: sitemaps only add pages to a crawl, they never fail it.
 */
export async function sitemapPages(
  start: URL[],
  settings: FetchSettings,
  reader: SitemapReader,
  limit: number,
): Promise<SitemapPages> {
  const queue = [...start];
  const seen = new Set<string>();
  const pages: URL[] = [];
  let complete = true;
  while (queue.length > 0 && seen.size < maxSitemaps && pages.length < limit) {
    const url = queue.shift()!;
    if (seen.has(url.href)) continue;
    seen.add(url.href);
    try {
      const found = await fetchSitemap(url, settings, reader);
      const listed = toUrls(found.pages);
      if (listed.length > limit - pages.length) complete = false;
      pages.push(...listed.slice(0, limit - pages.length));
      queue.push(...toUrls(found.sitemaps));
    } catch (error) {
      if (settings.signal.aborted) throw error;
      complete = false;
    }
  }
  if (queue.some((url) => !seen.has(url.href))) complete = false;
  return { pages, complete };
}

function toUrls(hrefs: string[]): URL[] {
  return hrefs.flatMap((href) => (URL.canParse(href) ? [new URL(href)] : []));
}
