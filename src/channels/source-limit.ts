import type { Request, RequestHandler, Response } from "express";
import { AppError } from "../errors.js";
import { applyDecision, type Limit, type RateLimits } from "../http/rate-limit.js";
import type { RestRoute } from "../rest/route.js";

// Webhook floods, counted per source: a request whose signature, token or body is nobody's, or whose events
// name no configured account, is a failure of the client address it came from. An address past its failures
// is refused (429 with Retry-After) before its body is read, until its window ends. A provider's valid
// deliveries are never counted, so one address's flood leaves another's deliveries alone; the per-channel
// limit (webhook.ts) still counts those.

/** The errors a stranger's request ends in: no valid signature or token (401/403), a body of no provider's (422). */
const failures = new Set(["AUTH_INVALID", "FORBIDDEN", "VALIDATION"]);

/** Set on a response whose request carried events for no configured account, however it was answered. */
export function markUnrouted(res: Response): void {
  res.locals.webhookUnrouted = true;
}

export class WebhookSources {
  constructor(
    private readonly limits: RateLimits,
    private readonly limit: Limit,
  ) {}

  private key(req: Request): string {
    return `webhook-failures:${req.ip ?? req.socket.remoteAddress ?? "unknown"}`;
  }

  /** Refuses an address that has spent its failures, before anything else is done for it. */
  readonly admit: RequestHandler = async (req, res, next) => {
    const standing = await this.limits.peek(this.key(req), this.limit);
    if (standing.remaining <= 0) applyDecision(res, { ...standing, allowed: false, resetS: Math.max(1, standing.resetS) });
    next();
  };

  private async strike(req: Request): Promise<void> {
    await this.limits.consume(this.key(req), this.limit);
  }

  /** The route with its source admitted first and its failures counted. */
  guard(route: RestRoute): RestRoute {
    return {
      ...route,
      before: [this.admit, ...(route.before ?? [])],
      errors: [...new Set([...(route.errors ?? []), 429])],
      handle: async (req, res) => {
        try {
          const answer = await route.handle(req, res);
          if (res.locals.webhookUnrouted) await this.strike(req);
          return answer;
        } catch (err) {
          if (err instanceof AppError && failures.has(err.code)) await this.strike(req);
          throw err;
        }
      },
    };
  }
}
