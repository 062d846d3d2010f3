import type { Prisma } from "../db/generated/prisma/client.js";
import type { Services } from "../services.js";

/** The rate limit in force for a tenant: its own setting, or the service default. */
export function effectiveRateLimit(
  settings: Prisma.JsonValue,
  config: { RATE_LIMIT_MAX: number; RATE_LIMIT_WINDOW_S: number },
): { max: number; windowS: number } {
  const s = (settings ?? {}) as { rateLimitMax?: number; rateLimitWindowS?: number };
  return { max: s.rateLimitMax ?? config.RATE_LIMIT_MAX, windowS: s.rateLimitWindowS ?? config.RATE_LIMIT_WINDOW_S };
}

/** The rate limit in force for a tenant known only by id (webhooks, the widget): read from its settings. */
export async function tenantRateLimit(services: Pick<Services, "db" | "config">, tenantId: string) {
  const tenant = await services.db.prisma.tenant.findUnique({ where: { id: tenantId }, select: { settings: true } });
  return effectiveRateLimit(tenant?.settings ?? {}, services.config);
}
