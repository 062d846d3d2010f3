export type ErrorCode = "AUTH_INVALID" | "FORBIDDEN" | "NOT_FOUND" | "VALIDATION" | "RATE_LIMIT" | "INTERNAL" | "EXTERNAL";

const statusOf: Record<ErrorCode, number> = {
  AUTH_INVALID: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  VALIDATION: 422,
  RATE_LIMIT: 429,
  INTERNAL: 500,
  EXTERNAL: 502,
};

export interface FieldProblem {
  path: string;
  message: string;
}

/**
 * The one error type of the domain. Thrown anywhere below the edge; turned into an HTTP body
 * (src/http/errors.ts) or a GraphQL error (src/graphql/errors.ts) in one place each.
 */
export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: FieldProblem[],
    status?: number,
  ) {
    super(message);
    this.name = "AppError";
    this.status = status ?? statusOf[code];
  }

  static statusOf(code: ErrorCode): number {
    return statusOf[code];
  }
}

/**
 * RATE_LIMIT with the seconds to wait, which the HTTP answer also carries as `Retry-After`: 429 for a caller over
 * its limit, 503 when the service itself is busy (e.g. no database connection was free in time).
 */
export class RateLimitError extends AppError {
  constructor(
    readonly retryAfterS: number,
    message = `Rate limit exceeded: retry in ${retryAfterS} seconds`,
    status = 429,
  ) {
    super("RATE_LIMIT", message, undefined, status);
  }
}

export const notFound = (what: string) => new AppError("NOT_FOUND", `${what} not found`);

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && value in statusOf;
}

/** What a client may be told of any failure: an AppError as it is, anything else as INTERNAL and nothing more. */
export function publicError(error: unknown): { error: string; code: ErrorCode } {
  return error instanceof AppError
    ? { error: error.message, code: error.code }
    : { error: "Internal server error", code: "INTERNAL" };
}
