import { RecentlyUsed } from "../ai/remembered.js";
import type { PrismaClient } from "./generated/prisma/client.js";

// Operations whose arguments carry a `where` that must be narrowed to the tenant.
const filtered = new Set([
  "findUnique",
  "findUniqueOrThrow",
  "findFirst",
  "findFirstOrThrow",
  "findMany",
  "count",
  "aggregate",
  "groupBy",
  "update",
  "updateMany",
  "updateManyAndReturn",
  "delete",
  "deleteMany",
  "upsert",
]);

const creating = new Set(["create", "createMany", "createManyAndReturn", "upsert"]);

type Args = { where?: Record<string, unknown>; data?: unknown; create?: Record<string, unknown> };

function withTenant(data: unknown, tenantId: string): unknown {
  if (Array.isArray(data)) return data.map((d) => withTenant(d, tenantId));
  return { ...(data as Record<string, unknown>), tenantId };
}

/**
 * The one place tenant isolation is enforced for data access: every query of the returned client
 * is narrowed to `tenantId` (the Tenant model by its id, every other model by its tenantId column),
 * and every created row is stamped with it. Resolvers never write a tenant `where` themselves.
 */
export function scopeToTenant(prisma: PrismaClient, tenantId: string): TenantDb {
  let scoped = scopedClients.get(prisma);
  if (!scoped) {
    scoped = new RecentlyUsed<TenantDb>(maxScopedTenants);
    scopedClients.set(prisma, scoped);
  }
  let db = scoped.get(tenantId);
  if (!db) {
    db = scopedClient(prisma, tenantId);
    scoped.set(tenantId, db);
  }
  return db;
}

// A scoped client holds nothing of a request: each request of a tenant used to extend the client again (Prisma's
// `$extends` builds a new client, 1 % of the serving thread under chat load), now the tenant's is kept.
const maxScopedTenants = 1_000;
const scopedClients = new WeakMap<PrismaClient, RecentlyUsed<TenantDb>>();

function scopedClient(prisma: PrismaClient, tenantId: string) {
  return prisma.$extends({
    name: "tenant-scope",
    query: {
      $allModels: {
        async $allOperations({ model, operation, args, query }) {
          const a = (args ?? {}) as Args;
          const key = model === "Tenant" ? "id" : "tenantId";
          if (model === "Tenant" && creating.has(operation) && operation !== "upsert") {
            throw new Error("A tenant-scoped client cannot create tenants");
          }
          if (filtered.has(operation)) a.where = { ...a.where, [key]: tenantId };
          if (model !== "Tenant") {
            if (operation === "upsert") a.create = withTenant(a.create, tenantId) as Record<string, unknown>;
            else if (creating.has(operation)) a.data = withTenant(a.data, tenantId);
          }
          return query(a as typeof args);
        },
      },
    },
  });
}

export type TenantDb = ReturnType<typeof scopedClient>;

/** A transaction of a tenant-scoped client: scoped like the client that opened it. */
export type TenantTx = Parameters<Parameters<TenantDb["$transaction"]>[0]>[0];
