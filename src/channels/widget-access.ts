import { createHash } from "node:crypto";
import type { Request, Response } from "express";
import { scopeToTenant, type TenantDb } from "../db/tenant-scope.js";
import { AppError } from "../errors.js";
import { applyDecision, type RateLimits } from "../http/rate-limit.js";
import type { Services } from "../services.js";
import { tenantRateLimit } from "../tenants/settings.js";
import type { ConfiguredChannel } from "./adapter.js";
import { channelById } from "./store.js";
import { allowedOrigins, normaliseOrigin } from "./widget.js";
import { readWidgetToken, widgetTokenSignedWith } from "./widget-token.js";

// Who may call the widget endpoints (DESIGN §3 "Widget"): a page whose origin is on the channel's allow-list,
// holding a token signed with the channel's current secret. CORS answers only allow-listed origins.

const allowedHeaders = "content-type, accept, x-widget-token, x-widget-visitor";
const exposedHeaders = "RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After";
// Chromium's ceiling: a page's widget asks again at most every two hours.
const preflightMaxAgeS = 7200;

/** A widget request that passed: its channel, and data access narrowed to the channel's tenant. */
export interface WidgetCaller {
  channel: ConfiguredChannel;
  db: TenantDb;
}

/**
 * The page's origin the browser sent: undefined when the request has no Origin (a server or a tool,
 * which the allow-list does not concern), null when it has one no list can hold (`null` from a sandbox).
 */
function originOf(req: Request): string | null | undefined {
  const header = req.get("origin");
  return header === undefined ? undefined : normaliseOrigin(header);
}

function allowCors(res: Response, origin: string): void {
  res.setHeader("Access-Control-Allow-Origin", origin);
  res.setHeader("Access-Control-Expose-Headers", exposedHeaders);
  res.vary("Origin");
}

const unauthenticatedLimit = (services: Services) => ({
  max: services.config.RATE_LIMIT_MAX,
  windowS: services.config.RATE_LIMIT_WINDOW_S,
});

/**
 * The CORS preflight of a widget endpoint. The token is not sent with it, so nothing tells which channel's list
 * applies: every page origin gets the same answer, which says nothing about any tenant's allow-list. The request
 * that follows is checked against its own channel's list.
 */
export async function answerWidgetPreflight(services: Services, limits: RateLimits, req: Request, res: Response): Promise<void> {
  applyDecision(res, await limits.consume(`ip:${req.ip}`, unauthenticatedLimit(services)));
  const origin = originOf(req);
  if (!origin) throw new AppError("FORBIDDEN", "This origin may not use the widget");
  allowCors(res, origin);
  res.setHeader("Access-Control-Allow-Methods", "GET, POST");
  res.setHeader("Access-Control-Allow-Headers", allowedHeaders);
  res.setHeader("Access-Control-Max-Age", String(preflightMaxAgeS));
  res.status(204).end();
}

/** The enabled widget channel that signed this token with its current secret, or null. */
async function channelOfToken(services: Services, token: string | undefined): Promise<ConfiguredChannel | null> {
  const claims = readWidgetToken(token);
  if (!claims?.channelId.startsWith("chn_")) return null;
  const channel = await channelById(services, claims.channelId);
  if (channel?.type !== "widget" || !channel.enabled || channel.tenantId !== claims.tenantId) return null;
  return widgetTokenSignedWith(claims, channel.credentials.secret ?? "") ? channel : null;
}

/**
 * Authenticates a widget request by its X-Widget-Token and its page's Origin, and counts it per token and
 * client IP (a bad token per IP alone): 401 AUTH_INVALID for a bad, tampered or revoked token, 403 FORBIDDEN
 * for a page outside the channel's allow-list, 429 RATE_LIMIT past the tenant's limit.
 */
export async function authenticateWidget(
  services: Services,
  limits: RateLimits,
  req: Request,
  res: Response,
): Promise<WidgetCaller> {
  const token = req.get("x-widget-token");
  const origin = originOf(req);
  const channel = await channelOfToken(services, token);
  const allowed =
    channel !== null && origin !== null && (origin === undefined || allowedOrigins(channel.settings).includes(origin));
  // CORS for the token's own allowed pages, and for a bad token's 401 to any page (the same for every page, it
  // says nothing about any tenant), so that a widget with a revoked token can tell why.
  if (origin && (allowed || !channel)) allowCors(res, origin);
  if (!channel) {
    applyDecision(res, await limits.consume(`ip:${req.ip}`, unauthenticatedLimit(services)));
    throw new AppError("AUTH_INVALID", "Invalid or revoked widget token");
  }
  // The token's fingerprint, not the token: counters live in Redis, where credentials have no business.
  const counter = `widget:${createHash("sha256").update(token!).digest("hex").slice(0, 32)}:${req.ip}`;
  applyDecision(res, await limits.consume(counter, await tenantRateLimit(services, channel.tenantId)));
  if (!allowed) throw new AppError("FORBIDDEN", "This site is not on the widget's list of allowed origins");
  return { channel, db: scopeToTenant(services.db.prisma, channel.tenantId) };
}
