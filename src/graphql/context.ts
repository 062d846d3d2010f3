import type { Request } from "express";
import type { Principal } from "../auth/principal.js";
import { scopeToTenant, type TenantDb } from "../db/tenant-scope.js";
import type { Services } from "../services.js";

export interface GraphQLContext {
  services: Services;
  principal: Principal | null;
  requestId: string;
  /** The caller's address (Express's `req.ip`, behind TRUST_PROXY): logins are throttled by it. */
  clientIp: string;
  /** The caller's User-Agent, recorded with the sessions a login opens. */
  userAgent: string;
  /**
   * The caller's tenant-scoped data access. Without a principal it is scoped to no tenant at all,
   * so a field that forgot its auth scope still reads nothing. (Plain properties, not getters:
   * yoga copies the context object.)
   */
  db: TenantDb;
  tenantId: string;
}

const noTenant = "";

/** The context of one request's operation, from the request as authenticate() left it. */
export function buildContext(services: Services, req: Request): GraphQLContext {
  const principal = req.principal ?? null;
  const tenantId = principal?.tenantId ?? noTenant;
  return {
    services,
    principal,
    requestId: String(req.id),
    clientIp: req.ip ?? "",
    userAgent: req.get("user-agent") ?? "",
    db: scopeToTenant(services.db.prisma, tenantId),
    tenantId,
  };
}
