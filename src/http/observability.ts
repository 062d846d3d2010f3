import { randomUUID } from "node:crypto";
import type { RequestHandler, Router } from "express";
import { Router as createRouter } from "express";
import { pinoHttp } from "pino-http";
import type { Services } from "../services.js";

const acceptableRequestId = /^[\w.:-]{1,64}$/;

/** Structured request logs with a request id (taken from X-Request-Id when sane), and no secrets or bodies. */
export function requestLogging(services: Services): RequestHandler {
  return pinoHttp({
    logger: services.logger,
    genReqId: (req, res) => {
      const incoming = req.headers["x-request-id"];
      const id = typeof incoming === "string" && acceptableRequestId.test(incoming) ? incoming : randomUUID();
      res.setHeader("X-Request-Id", id);
      return id;
    },
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? "error" : "info"),
    autoLogging: { ignore: (req) => req.url === "/healthz" || req.url === "/metrics" },
    serializers: {
      // The path only: query strings can carry phone numbers and search text.
      req: (req) => ({ id: req.id, method: req.method, path: String(req.url).split("?")[0] }),
      res: (res) => ({ statusCode: res.statusCode }),
    },
  });
}

export function requestMetrics(services: Services): RequestHandler {
  const { httpRequests, httpDuration } = services.metrics;
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on("finish", () => {
      const route = req.route?.path ? `${req.baseUrl}${req.route.path}` : req.baseUrl || "unmatched";
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      httpRequests.inc({ method: req.method, route, status: String(res.statusCode) });
      httpDuration.observe({ method: req.method, route }, seconds);
    });
    next();
  };
}

/**
 * /healthz (the process is alive), /readyz (it can serve: its database answers; a Redis that does not is reported as
 * `degraded`, still 200, since rate limits and pubsub fall back to the instance itself), /metrics (Prometheus).
 */
export function operationsRouter(services: Services): Router {
  const router = createRouter();
  router.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  router.get("/readyz", async (_req, res) => {
    const check = async (probe: () => Promise<unknown>) => {
      try {
        await probe();
        return "ok";
      } catch (err) {
        return `error: ${(err as Error).message}`;
      }
    };
    const database = await check(() => services.db.sql.query("SELECT 1"));
    const redis = services.redis ? await check(() => services.redis!.ping()) : "not configured";
    if (database !== "ok") {
      res.status(503).json({ status: "unavailable", database, redis });
      return;
    }
    // Every instance shares the Redis: failing them all for it would take the whole service down for a dependency
    // it can do without.
    const degraded = redis === "ok" || redis === "not configured" ? [] : ["redis"];
    res.json({ status: degraded.length ? "degraded" : "ready", database, redis, ...(degraded.length ? { degraded } : {}) });
  });
  router.get("/metrics", async (_req, res) => {
    res.setHeader("Content-Type", services.metrics.registry.contentType);
    res.send(await services.metrics.registry.metrics());
  });
  return router;
}
