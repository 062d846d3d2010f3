import { setTimeout as sleep } from "node:timers/promises";
import type { Response } from "undici";
import { type Egress, EgressRefusedError } from "../http/egress.js";

export interface FetchSettings {
  userAgent: string;
  requestTimeoutMs: number;
  maxBytes: number;
  maxRetries: number;
  /** Every request goes through it: internal addresses are refused at connection time. */
  egress: Egress;
  /** Aborts everything in flight, including waits between retries: the crawl's time budget and its caller's signal. */
  signal: AbortSignal;
}

/** A page that could not be fetched; the crawl records it and goes on. */
export class FetchError extends Error {
  override name = "FetchError";
}

/** A URL the crawler chose not to fetch, with the reason it reports. */
export class SkipError extends Error {
  override name = "SkipError";
  constructor(readonly reason: string) {
    super(reason);
  }
}

export interface Fetched {
  /** Where the content came from, after redirects. */
  url: URL;
  response: Response;
}

const maxRedirects = 5;
const retryBaseMs = 250;
// A server asking for minutes of patience gets its page skipped sooner rather than a stalled crawl.
const maxRetryWaitMs = 30_000;
const redirectStatuses = new Set([301, 302, 303, 307, 308]);

export function normaliseUrl(url: URL): URL {
  const copy = new URL(url);
  copy.hash = "";
  if (copy.search === "?") copy.search = "";
  return copy;
}

/**
 * GETs a URL, following up to five redirects by hand so each hop passes `check` (the crawler's site,
 * robots and duplicate rules) and the egress guard; retries 429 and 5xx with backoff.
 */
export async function fetchFollowing(
  start: URL,
  settings: FetchSettings,
  check: (url: URL, hop: number) => void | Promise<void> = () => {},
): Promise<Fetched> {
  const chain = new Set<string>();
  let url = normaliseUrl(start);
  for (let hop = 0; ; hop++) {
    chain.add(url.href);
    await check(url, hop);
    const response = await requestWithRetries(url, settings);
    if (!redirectStatuses.has(response.status)) return { url, response };
    await response.body?.cancel();
    const next = redirectTarget(url, response);
    if (chain.has(next.href)) throw new FetchError(`redirect loop (${[...chain, next.href].join(" → ")})`);
    if (hop + 1 > maxRedirects) throw new FetchError(`more than ${maxRedirects} redirects`);
    url = next;
  }
}

function redirectTarget(from: URL, response: Response): URL {
  const location = response.headers.get("location");
  if (!location) throw new FetchError(`HTTP ${response.status} redirect without a Location`);
  const next = normaliseUrl(new URL(location, from));
  if (next.protocol !== "http:" && next.protocol !== "https:") throw new FetchError(`redirect to a ${next.protocol} URL`);
  return next;
}

async function requestWithRetries(url: URL, settings: FetchSettings): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    let response: Response;
    try {
      response = await request(url, settings);
    } catch (error) {
      const final = error instanceof FetchError || error instanceof EgressRefusedError;
      if (final || settings.signal.aborted || attempt >= settings.maxRetries) throw error;
      await sleep(backoff(attempt), undefined, { signal: settings.signal });
      continue;
    }
    const transient = response.status === 429 || response.status >= 500;
    if (!transient || attempt >= settings.maxRetries) return response;
    await response.body?.cancel();
    const wait = retryAfterMs(response.headers.get("retry-after")) ?? backoff(attempt);
    await sleep(Math.min(wait, maxRetryWaitMs), undefined, { signal: settings.signal });
  }
}

async function request(url: URL, settings: FetchSettings): Promise<Response> {
  const timeout = AbortSignal.timeout(settings.requestTimeoutMs);
  try {
    return await settings.egress.fetch(url, {
      headers: { "user-agent": settings.userAgent, accept: "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5" },
      signal: AbortSignal.any([settings.signal, timeout]),
    });
  } catch (error) {
    if (settings.signal.aborted || error instanceof EgressRefusedError) throw error;
    // A slow server is not retried: three more waits of the full timeout would stall the whole crawl.
    if (timeout.aborted) throw new FetchError(`no answer within ${settings.requestTimeoutMs / 1000} s`);
    // fetch reports every network failure as "fetch failed"; the cause says which (ECONNREFUSED, ENOTFOUND…).
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new Error(`network error: ${cause?.code ?? cause?.message ?? (error as Error).message}`);
  }
}

function backoff(attempt: number): number {
  return retryBaseMs * 2 ** attempt * (0.75 + Math.random() / 2);
}

function retryAfterMs(header: string | null): number | null {
  if (!header) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}

/** The body, refusing more than `maxBytes` (declared or actual) without reading the rest. */
export async function readBody(response: Response, maxBytes: number): Promise<Buffer> {
  const tooLarge = () => new FetchError(`larger than ${Math.round(maxBytes / 1024)} KiB`);
  if (Number(response.headers.get("content-length") ?? 0) > maxBytes) {
    await response.body?.cancel();
    throw tooLarge();
  }
  const parts: Uint8Array[] = [];
  let size = 0;
  const reader = response.body?.getReader();
  for (let part = await reader?.read(); part && !part.done; part = await reader?.read()) {
    size += part.value.byteLength;
    if (size > maxBytes) {
      await reader?.cancel();
      throw tooLarge();
    }
    parts.push(part.value);
  }
  return Buffer.concat(parts);
}

export async function readText(response: Response, maxBytes: number): Promise<string> {
  return decoderFor(response.headers.get("content-type")).decode(await readBody(response, maxBytes));
}

function decoderFor(contentType: string | null): TextDecoder {
  const charset = /charset=["']?([\w-]+)/i.exec(contentType ?? "")?.[1];
  try {
    return new TextDecoder(charset ?? "utf-8");
  } catch {
    return new TextDecoder("utf-8");
  }
}
