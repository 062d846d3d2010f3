import express, { type Express, Router } from "express";
import { AppError } from "../errors.js";
import { createGraphQLHandler } from "../graphql/yoga.js";
import { maxPdfBytes } from "../knowledge/sources.js";
import { restRouter, restRoutes } from "../rest/index.js";
import type { Services } from "../services.js";
import { authenticate, rejectInvalidCredential } from "./auth.js";
import { dashboardRouter } from "./dashboard.js";
import { docsRouter } from "./docs.js";
import { errorHandler } from "./errors.js";
import { graphiqlPage } from "./graphiql.js";
import { graphqlRequestGuard } from "./graphql-request.js";
import { operationsRouter, requestLogging, requestMetrics } from "./observability.js";
import { oidcRouter } from "./oidc.js";
import { RateLimits, rateLimitByCaller } from "./rate-limit.js";
import { securityHeaders } from "./security-headers.js";
import "./request.js";
import { assertUtf8Body, providerPath, storableAddress, storableBody } from "./storable-input.js";
import { widgetRouter } from "./widget.js";

export const jsonBodyLimit = 1024 * 1024;
// The operations and map fields that travel beside an uploaded file.
const multipartOverhead = 64 * 1024;

// Paths that authenticate themselves (provider signatures, widget tokens) and count their own rate limits.
const selfAuthenticated = /^\/api\/(channels\/|v1\/(channels|voice|widget)\/)/;

// Liveness and readiness probes carry the headers but are not counted: a balancer probing from a shared
// address must not get a 429 and take a healthy instance out of service (README, Rate limits).
const uncountedProbes = new Set(["/healthz", "/readyz"]);
// The dashboard's page and files are the same bytes for everyone, from memory: counting them per address would let
// one office of agents behind a shared address use up its limit by opening the app.
const isDashboardFile = (path: string) => path === "/dashboard" || path.startsWith("/dashboard/");

/** The whole HTTP surface of one instance. */
export function createApp(services: Services, limits = new RateLimits(services, services.config.REDIS_KEY_PREFIX)): Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", services.config.TRUST_PROXY);
  app.set("query parser", "simple");
  app.use(securityHeaders());

  app.use(requestLogging(services));
  app.use(requestMetrics(services));

  // Callers with an API key (or none): counted per key, or per IP when unauthenticated, on every path so that
  // every answer carries the RateLimit headers (probes, docs and 404s too). Before the body parser, so that a
  // malformed or oversized body is counted and answered with the headers too.
  const callers = Router();
  callers.use(
    authenticate(services),
    rateLimitByCaller(
      limits,
      { max: services.config.RATE_LIMIT_MAX, windowS: services.config.RATE_LIMIT_WINDOW_S },
      (req) => req.method === "GET" && (uncountedProbes.has(req.path) || isDashboardFile(req.path)),
    ),
  );
  app.use((req, res, next) => (selfAuthenticated.test(req.originalUrl) ? next() : callers(req, res, next)));
  // Only the API refuses a bad key: the public documents and probes answer whoever asks.
  app.use(["/api", "/graphql"], rejectInvalidCredential);
  app.use(storableAddress);

  const routes = restRoutes(services, limits);
  // Providers' webhooks come first: an acknowledgement passes none of the API's routers, and its body is read once,
  // as the bytes its signature covers, rather than parsed as JSON here and again by the channel.
  const fromProviders = routes.filter((route) => providerPath.test(route.path));
  const webhooks = Router();
  webhooks.use(restRouter(fromProviders));
  app.use((req, res, next) => (providerPath.test(req.originalUrl) ? webhooks(req, res, next) : next()));

  app.use(operationsRouter(services));
  app.use(docsRouter(routes, services.config));
  app.use(widgetRouter(services, limits));
  app.use(dashboardRouter(services));
  app.use(oidcRouter(services));

  app.use(
    express.json({
      limit: jsonBodyLimit,
      verify: (req, _res, buf, encoding) => assertUtf8Body(req as express.Request, buf, encoding),
    }),
  );
  app.use(storableBody);

  // Yoga reads any other body itself, with no limit: /graphql reads them here, under the same limit as JSON (a
  // PDF upload, multipart, under the PDF limit), so that every oversized body is the same 413.
  app.use(
    "/graphql",
    express.raw({ type: "multipart/form-data", limit: maxPdfBytes + multipartOverhead }),
    express.raw({ type: () => true, limit: jsonBodyLimit }),
  );
  app.use(graphiqlPage(services.config));
  const graphql = createGraphQLHandler(services);
  app.use("/graphql", graphqlRequestGuard, graphql as unknown as express.RequestHandler);

  app.use(restRouter(routes.filter((route) => !fromProviders.includes(route))));

  app.use((req) => {
    throw new AppError("NOT_FOUND", `No route for ${req.method} ${req.path}`);
  });
  app.use(errorHandler);
  return app;
}
