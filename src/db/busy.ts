import { RateLimitError } from "../errors.js";

const retryAfterS = 2;

/**
 * How each layer says the database had no connection for a request in time, when the service is busier than its
 * pool: pg-pool's connection timeout (DATABASE_POOL_TIMEOUT_MS), as it is or wrapped by Prisma; Prisma's own wait
 * for a transaction to start (P2028, on either database); the server refusing more connections (53300, P2037).
 */
const busySignals = [
  (e: Record<string, unknown>) => typeof e.message === "string" && e.message.includes("timeout exceeded when trying to connect"),
  (e: Record<string, unknown>) =>
    e.code === "P2028" && typeof e.message === "string" && e.message.includes("Unable to start a transaction in the given time"),
  (e: Record<string, unknown>) => e.code === "53300" || e.code === "P2037",
];

/** The error to answer with when `error` says the database is out of connections (503, Retry-After), else null. */
export function databaseBusy(error: unknown): RateLimitError | null {
  for (let e = error, depth = 0; e && typeof e === "object" && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (busySignals.some((signal) => signal(e as Record<string, unknown>))) {
      return new RateLimitError(retryAfterS, `The service is busy: try again in ${retryAfterS} seconds`, 503);
    }
  }
  return null;
}
