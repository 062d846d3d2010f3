import type { Request, Response } from "express";
import { GraphQLError } from "graphql";
import { type CORSOptions, createYoga, type Plugin, type YogaLogger } from "graphql-yoga";
import type { Logger } from "pino";
import type { Config } from "../config.js";
import { AppError } from "../errors.js";
import type { Services } from "../services.js";
import { buildContext } from "./context.js";
import { toGraphQLError } from "./errors.js";
import { operationLimitPlugins } from "./limits.js";
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
 * logs each error that maskError replaced, and each request it refused; 4xx errors are answers, not failures, so
 * only debug.
 */
function yogaLogger(logger: Logger): YogaLogger {
  const forward =
    (level: "debug" | "info" | "warn" | "error") =>
    (...args: unknown[]) => {
      const err = args.find((arg) => arg instanceof Error);
      const original = err instanceof GraphQLError && err.originalError ? err.originalError : err;
      // Yoga's own refusals of a request (no query, variables that are not an object) carry their 4xx status.
      const refused = err instanceof GraphQLError && !err.originalError && Number(err.extensions.http?.status) < 500;
      const answered = refused || (original instanceof AppError && original.status < 500);
      const message = args.filter((arg) => typeof arg === "string").join(" ") || "graphql";
      logger[answered ? "debug" : level](err ? { err } : {}, message);
    };
  return { debug: forward("debug"), info: forward("info"), warn: forward("warn"), error: forward("error") };
}

/**
 * Yoga answers any Origin with itself and allows credentials by default. Here only the operator's allow-list
 * (GRAPHQL_CORS_ORIGINS, empty by default) gets CORS, never with credentials: callers authenticate with a header
 * their own code sets, not with cookies. Other origins get no CORS headers at all.
 */
function corsFor(config: Config): (request: globalThis.Request) => CORSOptions {
  const allowed = new Set(config.GRAPHQL_CORS_ORIGINS);
  return (request: globalThis.Request) => {
    const origin = request.headers.get("origin");
    if (!origin || !allowed.has(origin)) return false;
    return {
      origin: [origin],
      credentials: false,
      methods: ["GET", "POST"],
      allowedHeaders: ["authorization", "x-api-key", "content-type", "accept"],
      exposedHeaders: ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "Retry-After"],
      maxAge: 7200,
    };
  };
}

/**
 * /graphql: queries, mutations, and subscriptions over SSE (graphql-sse's distinct-connections mode). GraphiQL is
 * served by src/http/graphiql.ts, from the service's own copy of its assets.
 */
export function createGraphQLHandler(services: Services) {
  return createYoga<{ req: Request; res: Response }>({
    schema,
    graphqlEndpoint: "/graphql",
    graphiql: false,
    landingPage: false,
    cors: corsFor(services.config),
    plugins: [...operationLimitPlugins(services.config), storableGraphQLInput, validationErrorsAsValidation],
    logging: yogaLogger(services.logger),
    maskedErrors: { maskError: (error) => toGraphQLError(error) },
    context: ({ req }) => buildContext(services, req),
  });
}
