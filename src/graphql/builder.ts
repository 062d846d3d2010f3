import SchemaBuilder from "@pothos/core";
import PrismaPlugin from "@pothos/plugin-prisma";
import ScopeAuthPlugin from "@pothos/plugin-scope-auth";
import { DateTimeISOResolver, JSONResolver } from "graphql-scalars";
import { permits } from "../auth/principal.js";
import type { Permission } from "../auth/roles.js";
import type PrismaTypes from "../db/generated/pothos-types.js";
import { getDatamodel } from "../db/generated/pothos-types.js";
import type { PrismaClient } from "../db/generated/prisma/client.js";
import { AppError } from "../errors.js";
import AuditPlugin from "./audit-plugin.js";
import type { GraphQLContext } from "./context.js";

export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  PrismaTypes: PrismaTypes;
  // signedIn: any caller with a valid credential, even a session held back until its user enrols in two-factor.
  AuthScopes: { authenticated: boolean; signedIn: boolean; permission: Permission };
  Scalars: {
    DateTime: { Input: Date; Output: Date | string };
    JSON: { Input: unknown; Output: unknown };
    File: { Input: File; Output: never };
  };
  DefaultFieldNullability: false;
}>({
  defaultFieldNullability: false,
  // In this order, outermost first: the caller's permission is checked before the audit reads anything.
  plugins: [ScopeAuthPlugin, AuditPlugin, PrismaPlugin],
  prisma: {
    // Every Prisma-backed field reads through the caller's tenant-scoped client (src/db/tenant-scope.ts).
    client: (ctx) => ctx.db as unknown as PrismaClient,
    dmmf: getDatamodel(),
    filterConnectionTotalCount: true,
    onUnusedQuery: null,
  },
  scopeAuth: {
    authScopes: (ctx) => ({
      authenticated: ctx.principal !== null && !ctx.principal.mfaEnrolmentRequired,
      signedIn: ctx.principal !== null,
      permission: (perm) => permits(ctx.principal, perm),
    }),
    unauthorizedError: (_parent, ctx) =>
      ctx.principal === null
        ? new AppError("AUTH_INVALID", "Missing or invalid API key")
        : ctx.principal.mfaEnrolmentRequired
          ? new AppError("FORBIDDEN", "The tenant requires two-factor sign-in: enrol first (enrolMfa, then confirmMfa)")
          : new AppError("FORBIDDEN", `The ${ctx.principal.role} role may not do this`),
  },
});

builder.addScalarType("DateTime", DateTimeISOResolver);
builder.addScalarType("JSON", JSONResolver);
builder.scalarType("File", {
  description: "A file sent as multipart/form-data (GraphQL multipart request spec)",
  serialize: () => {
    throw new Error("File is an input-only scalar");
  },
});
builder.queryType({});
builder.mutationType({});
builder.subscriptionType({});
