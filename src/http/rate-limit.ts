import type { Request, RequestHandler, Response } from "express";
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import { AppError } from "../errors.js";
import type { Services } from "../services.js";

export interface Limit {
  max: number;
  windowS: number;
}

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  resetS: number;
}

/**
 * Fixed-window counters (DESIGN §3), in memory or in Redis so that every instance shares them.
 * One limiter per distinct (max, window), since tenants may override the defaults.
 */
export class RateLimits {
  private readonly limiters = new Map<string, RateLimiterAbstract>();

  constructor(
    private readonly services: Pick<Services, "redis">,
    private readonly keyPrefix = "parley:",
  ) {}

  private limiterFor(limit: Limit): RateLimiterAbstract {
    const id = `${limit.max}/${limit.windowS}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      const options = { points: limit.max, duration: limit.windowS, keyPrefix: `${this.keyPrefix}rl:${limit.windowS}` };
      const memory = new RateLimiterMemory(options);
      limiter = this.services.redis
        ? new RateLimiterRedis({ ...options, storeClient: this.services.redis, insuranceLimiter: memory })
        : memory;
      this.limiters.set(id, limiter);
    }
    return limiter;
  }

  /** Where a caller stands, without counting a request: for answers that must never be refused. */
  async peek(key: string, limit: Limit): Promise<RateLimitDecision> {
    const res = await this.limiterFor(limit).get(key);
    if (!res) return { allowed: true, limit: limit.max, remaining: limit.max, resetS: limit.windowS };
    return { allowed: true, limit: limit.max, remaining: res.remainingPoints, resetS: Math.ceil(res.msBeforeNext / 1000) };
  }

  async consume(key: string, limit: Limit): Promise<RateLimitDecision> {
    try {
      const res = await this.limiterFor(limit).consume(key, 1);
      return { allowed: true, limit: limit.max, remaining: res.remainingPoints, resetS: Math.ceil(res.msBeforeNext / 1000) };
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      return { allowed: false, limit: limit.max, remaining: 0, resetS: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)) };
    }
  }
}

export function applyDecision(res: Response, decision: RateLimitDecision): void {
  res.setHeader("RateLimit-Limit", String(decision.limit));
  res.setHeader("RateLimit-Remaining", String(decision.remaining));
  res.setHeader("RateLimit-Reset", String(decision.resetS));
  if (!decision.allowed) {
    res.setHeader("Retry-After", String(decision.resetS));
    throw new AppError("RATE_LIMIT", `Rate limit exceeded: retry in ${decision.resetS} seconds`);
  }
}

/**
 * Counted per API key for authenticated calls, per client IP otherwise. Requests for which `uncounted` holds get
 * the headers of the caller's counter without spending from it, and are never refused.
 */
export function rateLimitByCaller(
  limits: RateLimits,
  defaults: Limit,
  uncounted: (req: Request) => boolean = () => false,
): RequestHandler {
  return async (req: Request, res, next) => {
    const principal = req.principal;
    const [key, limit] = principal ? [`key:${principal.id}`, principal.rateLimit] : [`ip:${req.ip}`, defaults];
    const decision = uncounted(req) ? await limits.peek(key, limit) : await limits.consume(key, limit);
    applyDecision(res, decision);
    next();
  };
}
