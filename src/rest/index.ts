import { Router } from "express";
import { channelWebhookRoutes } from "../channels/routes.js";
import { requireAuth } from "../http/auth.js";
import { RateLimits } from "../http/rate-limit.js";
import { storableBody } from "../http/storable-input.js";
import type { Services } from "../services.js";
import { agentRoutes } from "./agents.js";
import { analyticsRoutes } from "./analytics.js";
import { auditRoutes } from "./audit.js";
import { channelRoutes } from "./channels.js";
import { chatRoutes } from "./chat.js";
import { conversationRoutes } from "./conversations.js";
import { escalationRoutes } from "./escalations.js";
import { evaluationRoutes } from "./evaluations.js";
import { exportRoutes } from "./exports.js";
import { feedbackRoutes } from "./feedback.js";
import { intentRoutes } from "./intents.js";
import { knowledgeRoutes } from "./knowledge.js";
import { retentionRoutes } from "./retention.js";
import { Reply, type RestRoute } from "./route.js";
import { sessionRoutes } from "./sessions.js";
import { webhookRoutes } from "./webhooks.js";
import { widgetRoutes } from "./widget.js";

/** Every REST route of the service; the OpenAPI document is made from the same list. */
export function restRoutes(services: Services, limits = new RateLimits(services, services.config.REDIS_KEY_PREFIX)): RestRoute[] {
  return [
    ...chatRoutes(services),
    // Before the conversation routes: /api/conversations/export is not a conversation id.
    ...exportRoutes(services),
    ...conversationRoutes(services),
    ...escalationRoutes(services),
    ...agentRoutes(services),
    ...sessionRoutes(services),
    ...analyticsRoutes(services),
    ...intentRoutes(services),
    ...knowledgeRoutes(services),
    ...evaluationRoutes(services),
    ...channelRoutes(services),
    ...auditRoutes(services),
    ...retentionRoutes(services),
    ...webhookRoutes(services),
    ...channelWebhookRoutes(services, limits),
    ...widgetRoutes(services, limits),
    ...feedbackRoutes(services, limits),
  ];
}

export function restRouter(routes: RestRoute[]): Router {
  const router = Router();
  for (const route of routes) {
    const guards = route.auth === "self" ? [] : [requireAuth];
    // A route's own body parser (multipart, CSV) reads after the app's check: its fields are checked too.
    const parsers = route.before ? [...route.before, storableBody] : [];
    router[route.method](route.path, ...guards, ...parsers, async (req, res) => {
      const result = await route.handle(req, res);
      if (res.headersSent) return;
      if (result instanceof Reply) res.status(result.status).json(result.body);
      else res.status(route.response.status).json(result);
    });
  }
  return router;
}
