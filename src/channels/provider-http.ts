import { PermanentJobError, RetryLater } from "../jobs/queue.js";

/** A provider answered with an error: retried by the send job unless it is permanent. */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = "ProviderError";
  }
}

const timeoutMs = 10_000;
const maxRetryAfterMs = 15 * 60_000;

/** `Retry-After` as seconds or an HTTP date, in milliseconds from now. */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (!header) return null;
  const seconds = Number(header);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - now;
  return Number.isFinite(ms) ? Math.min(maxRetryAfterMs, Math.max(0, ms)) : null;
}

function describe(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: unknown; message?: unknown; description?: unknown };
    const error = parsed.error as { message?: unknown } | string | undefined;
    const text =
      (typeof error === "object" && typeof error?.message === "string" && error.message) ||
      (typeof error === "string" && error) ||
      (typeof parsed.message === "string" && parsed.message) ||
      (typeof parsed.description === "string" && parsed.description);
    if (text) return text.slice(0, 300);
  } catch {
    // not JSON: the text itself
  }
  return body.slice(0, 300) || "no body";
}

/**
 * One call to a provider's send API, with a timeout. Throws what the job queue understands: a
 * RetryLater honouring `Retry-After` on 429, a plain error (retried with backoff) on 5xx and
 * network failures, and a PermanentJobError on other 4xx, which retrying cannot fix.
 */
export async function callProvider(url: string, init: RequestInit, signal?: AbortSignal): Promise<string> {
  const timeout = AbortSignal.timeout(timeoutMs);
  let res: Response;
  try {
    res = await fetch(url, { ...init, signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
  } catch (err) {
    throw new ProviderError(`provider unreachable: ${(err as Error).message}`, 0);
  }
  const body = await res.text();
  if (res.ok) return body;
  const message = `provider answered ${res.status}: ${describe(body)}`;
  if (res.status === 429) {
    const wait = retryAfterMs(res.headers.get("retry-after"));
    if (wait !== null) throw new RetryLater(message, wait);
    throw new ProviderError(message, res.status);
  }
  if (res.status >= 500 || res.status === 408) throw new ProviderError(message, res.status);
  throw new PermanentJobError(message);
}

/** A JSON POST to a provider; the parsed answer. */
export async function postJson<T>(url: string, body: unknown, headers: Record<string, string>, signal?: AbortSignal): Promise<T> {
  const text = await callProvider(
    url,
    { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) },
    signal,
  );
  return (text ? JSON.parse(text) : {}) as T;
}

/** A form POST (Twilio, Africa's Talking); the parsed JSON answer. */
export async function postForm<T>(
  url: string,
  form: Record<string, string>,
  headers: Record<string, string>,
  signal?: AbortSignal,
): Promise<T> {
  const text = await callProvider(
    url,
    {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json", ...headers },
      body: new URLSearchParams(form).toString(),
    },
    signal,
  );
  return (text ? JSON.parse(text) : {}) as T;
}
