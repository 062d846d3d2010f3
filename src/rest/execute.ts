import type { TypedDocumentNode } from "@graphql-typed-document-node/core";
import type { Request } from "express";
import { type DocumentNode, execute, type GraphQLError, subscribe, validate } from "graphql";
import { AppError } from "../errors.js";
import { buildContext } from "../graphql/context.js";
import { toAppError } from "../graphql/errors.js";
import { schema } from "../graphql/schema/index.js";
import type { Services } from "../services.js";

const validated = new WeakSet<object>();

function assertValid(document: DocumentNode): void {
  if (validated.has(document)) return;
  const problems = validate(schema, document);
  if (problems.length) throw new Error(`REST operation does not match the schema: ${problems[0]?.message}`);
  validated.add(document);
}

/**
 * Runs one typed GraphQL operation for a REST route, as the caller of that route: the resolvers
 * do the auth, validation and tenant scoping, and their error becomes the route's error.
 */
export async function runOperation<TResult, TVariables extends Record<string, unknown>>(
  services: Services,
  req: Request,
  document: TypedDocumentNode<TResult, TVariables>,
  variables: TVariables,
): Promise<TResult> {
  assertValid(document);
  const result = await execute({
    schema,
    document,
    variableValues: variables,
    contextValue: buildContext(services, req),
  });
  if (result.errors?.length) {
    // No data at all means the variables were rejected before execution: the request is invalid.
    if (result.data === undefined) throw invalidVariables(result.errors);
    throw toAppError(result.errors as GraphQLError[]);
  }
  return result.data as TResult;
}

function invalidVariables(errors: readonly GraphQLError[]): AppError {
  const details = errors.map((e) => ({
    path: e.message.match(/Variable "\$(\w+)"/)?.[1] ?? "query",
    message: e.message.replace(/^Variable "\$\w+" got invalid value /, "invalid value "),
  }));
  return new AppError("VALIDATION", `Invalid request: ${details.map((d) => `${d.path}: ${d.message}`).join("; ")}`, details);
}

/**
 * Starts a GraphQL subscription for a REST route (SSE). Errors before the first event (auth,
 * validation) are thrown as AppErrors; errors during the stream arrive as results with `errors`.
 */
export async function runSubscription<TResult, TVariables extends Record<string, unknown>>(
  services: Services,
  req: Request,
  document: TypedDocumentNode<TResult, TVariables>,
  variables: TVariables,
): Promise<AsyncIterableIterator<{ data?: TResult | null; errors?: readonly GraphQLError[] }>> {
  assertValid(document);
  const result = await subscribe({
    schema,
    document,
    variableValues: variables,
    contextValue: buildContext(services, req),
  });
  if (!(Symbol.asyncIterator in result)) {
    if (result.errors?.length && result.data === undefined && !result.errors.some((e) => e.originalError)) {
      throw invalidVariables(result.errors);
    }
    throw toAppError((result.errors ?? []) as GraphQLError[]);
  }
  return result as AsyncIterableIterator<{ data?: TResult | null; errors?: readonly GraphQLError[] }>;
}
