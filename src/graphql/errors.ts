import { GraphQLError } from "graphql";
import { databaseBusy } from "../db/busy.js";
import { AppError, isErrorCode, RateLimitError } from "../errors.js";

/**
 * The one translation from a thrown error to what a GraphQL client sees: the spec's code in
 * `extensions.code`, field details for VALIDATION, and nothing of an unexpected error but INTERNAL.
 */
export function toGraphQLError(error: unknown): GraphQLError {
  const thrown = error instanceof GraphQLError && error.originalError ? error.originalError : error;
  const original = databaseBusy(thrown) ?? thrown;
  const path = error instanceof GraphQLError ? error.path : undefined;
  if (original instanceof AppError) {
    return new GraphQLError(original.message, {
      path,
      extensions: {
        code: original.code,
        ...(original.details ? { details: original.details } : {}),
        // For yoga, which answers with this status and header and does not send them on in the body.
        ...(original instanceof RateLimitError
          ? { http: { status: original.status, headers: { "Retry-After": String(original.retryAfterS) } } }
          : {}),
      },
    });
  }
  if (error instanceof GraphQLError && !error.originalError) {
    // Parse, validation and variable coercion errors: the request itself is wrong. An HTTP status set for it
    // (an operation over the limits) stays for yoga, which does not send it on.
    const code = isErrorCode(error.extensions?.code) ? error.extensions.code : "VALIDATION";
    const http = error.extensions?.http;
    return new GraphQLError(error.message, { path, nodes: error.nodes, extensions: { code, ...(http ? { http } : {}) } });
  }
  return new GraphQLError("Internal server error", { path, extensions: { code: "INTERNAL" } });
}

/** The first error of a GraphQL result as an AppError, for the REST shim. */
export function toAppError(errors: readonly GraphQLError[]): AppError {
  const first = errors[0];
  // As thrown, when it can be: its status (a 503 rather than its code's 429) and Retry-After go with it.
  const original = first?.originalError;
  if (original instanceof AppError) return original;
  const busy = databaseBusy(original);
  if (busy) return busy;
  const mapped = first ? toGraphQLError(first) : undefined;
  const code = mapped?.extensions.code;
  if (!mapped || !isErrorCode(code)) return new AppError("INTERNAL", "Internal server error");
  const details = mapped.extensions.details as AppError["details"];
  return new AppError(code, mapped.message, details);
}
