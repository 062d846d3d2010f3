import { GraphQLError } from "graphql";
import { databaseBusy } from "../db/busy.js";
import { AppError, isErrorCode, RateLimitError } from "../errors.js";
import { requestErrorHttp } from "./storable-input.js";

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
  // GraphQL's own errors: parse, validation, and variable coercion (which wraps the scalar's GraphQLError).
  if (error instanceof GraphQLError && (!error.originalError || error.originalError instanceof GraphQLError)) {
    const code = isErrorCode(error.extensions?.code) ? error.extensions.code : "VALIDATION";
    if (path) return new GraphQLError(error.message, { path, nodes: error.nodes, extensions: { code } });
    // Before execution the request itself is wrong: 4xx. Yoga's own status stands (405, 415…), but not its
    // `spec` flag, which answers 200 to application/json.
    const http = { ...requestErrorHttp, ...(error.extensions?.http as object | undefined), spec: false };
    return new GraphQLError(error.message, { nodes: error.nodes, extensions: { code, http } });
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
  const details = mapped?.extensions.details as AppError["details"];
  const error = isErrorCode(code)
    ? new AppError(code, mapped!.message, details)
    : new AppError("INTERNAL", "Internal server error");
  // The log of a 500 names what failed, not only where the GraphQL error was translated.
  if (error.status >= 500) error.cause = first?.originalError ?? first;
  return error;
}
