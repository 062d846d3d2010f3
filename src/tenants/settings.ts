import type { Config } from "../config.js";
import type { Prisma } from "../db/generated/prisma/client.js";
import type { TenantDb } from "../db/tenant-scope.js";
import { notFound } from "../errors.js";
import type { Services } from "../services.js";

/**
 * The rate limit in force for a tenant: its own setting, or the service default. A setting may allow at most
 * RATE_LIMIT_TENANT_MAX requests per RATE_LIMIT_WINDOW_S, scaled to the tenant's own window; the operator's
 * default is not capped.
 */
export function effectiveRateLimit(
  settings: Prisma.JsonValue,
  config: Pick<Config, "RATE_LIMIT_MAX" | "RATE_LIMIT_WINDOW_S" | "RATE_LIMIT_TENANT_MAX">,
): { max: number; windowS: number } {
  const s = (settings ?? {}) as { rateLimitMax?: number; rateLimitWindowS?: number };
  const max = s.rateLimitMax ?? config.RATE_LIMIT_MAX;
  const windowS = s.rateLimitWindowS ?? config.RATE_LIMIT_WINDOW_S;
  if (s.rateLimitMax === undefined && s.rateLimitWindowS === undefined) return { max, windowS };
  const ceiling = Math.max(1, Math.floor((config.RATE_LIMIT_TENANT_MAX * windowS) / config.RATE_LIMIT_WINDOW_S));
  return { max: Math.min(max, ceiling), windowS };
}

/** The rate limit in force for a tenant known only by id (webhooks, the widget): from its cached settings. */
export async function tenantRateLimit(services: Pick<Services, "tenants" | "config">, tenantId: string) {
  const tenant = await services.tenants.tenant(tenantId);
  return effectiveRateLimit(tenant?.settings ?? {}, services.config);
}

type SettingsContext = { db: TenantDb; services: Pick<Services, "tenants">; tenantId: string };

/**
 * Changes the caller's tenant settings (and its name, if given) from what is stored now, then tells every
 * instance's cache: the one place that writes settings, so no mutation forgets the announcement.
 */
export async function updateTenantSettings(
  ctx: SettingsContext,
  query: Prisma.TenantDefaultArgs,
  change: (settings: Prisma.JsonObject) => Prisma.InputJsonObject,
  name?: string,
) {
  const current = await ctx.db.tenant.findUnique({ where: { id: ctx.tenantId } });
  if (!current) throw notFound("Tenant");
  const settings = change({ ...(current.settings as Prisma.JsonObject) });
  const updated = await ctx.db.tenant.update({
    ...query,
    where: { id: ctx.tenantId },
    data: { ...(name ? { name } : {}), settings },
  });
  ctx.services.tenants.changed(ctx.tenantId);
  return updated;
}
