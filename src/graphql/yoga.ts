import type { Request, Response } from "express";
import { GraphQLError } from "graphql";
import { createYoga, type Plugin, type YogaLogger } from "graphql-yoga";
import type { Logger } from "pino";
import { AppError } from "../errors.js";
import type { Services } from "../services.js";
import { buildContext } from "./context.js";
import { toGraphQLError } from "./errors.js";
import { schema } from "./schema/index.js";
import { requestErrorHttp, storableGraphQLInput } from "./storable-input.js";

/** Yoga does not pass validation errors through maskError; they get the spec's code here. */
const validationErrorsAsValidation: Plugin = {
  onValidate:
    () =>
    ({ result, setResult }) => {
      if (result.length) {
        setResult(
          result.map(
            (e) => new GraphQLError(e.message, { nodes: e.nodes, extensions: { code: "VALIDATION", http: requestErrorHttp } }),
          ),
        );
      }
    },
};

/**
 * Yoga's log calls as the service's log lines, with their messages and errors only: anything else yoga might
 * pass (a request's parameters, whose variables hold the customer's message) stays out at every level. Yoga
 * logs each error that maskError replaced; the domain's 4xx errors are answers, not failures, so only debug.
 */
function yogaLogger(logger: Logger): YogaLogger {
  const forward =
    (level: "debug" | "info" | "warn" | "error") =>
    (...args: unknown[]) => {
      const err = args.find((arg) => arg instanceof Error);
      const original = err instanceof GraphQLError && err.originalError ? err.originalError : err;
      const answered = original instanceof AppError && original.status < 500;
      const message = args.filter((arg) => typeof arg === "string").join(" ") || "graphql";
      logger[answered ? "debug" : level](err ? { err } : {}, message);
    };
  return { debug: forward("debug"), info: forward("info"), warn: forward("warn"), error: forward("error") };
}

/** /graphql: queries, mutations, and subscriptions over SSE (graphql-sse's distinct-connections mode). */
export function createGraphQLHandler(services: Services) {
  return createYoga<{ req: Request; res: Response }>({
    schema,
    graphqlEndpoint: "/graphql",
    graphiql: services.config.NODE_ENV !== "production",
    landingPage: false,
    plugins: [storableGraphQLInput, validationErrorsAsValidation],
    logging: yogaLogger(services.logger),
    maskedErrors: { maskError: (error) => toGraphQLError(error) },
    context: ({ req }) => buildContext(services, req.principal ?? null, String(req.id)),
  });
}
