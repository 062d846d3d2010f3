import { z } from "zod";
import { verifyAuditChain } from "../../audit/verify.js";
import type { Prisma } from "../../db/generated/prisma/client.js";
import { builder } from "../builder.js";
import { pageArgs, pagingInput, skipTake } from "../paging.js";
import { parseInput } from "../validate.js";

const AuditActor = builder
  .objectRef<{ kind: string; id: string | null; label: string | null; role: string | null }>("AuditActor")
  .implement({
    description: "Who made the change",
    fields: (t) => ({
      kind: t.exposeString("kind", { description: "apiKey, user, system, or anonymous (a failed login)" }),
      id: t.exposeString("id", { nullable: true, description: "The API key's or the user's id" }),
      label: t.exposeString("label", { nullable: true, description: "The API key's prefix or the user's e-mail" }),
      role: t.exposeString("role", { nullable: true }),
    }),
  });

export const AuditRecord = builder.prismaObject("AuditRecord", {
  description: "A change made by a key or a user, or a login; append-only, chained by hash to the tenant's previous record",
  fields: (t) => ({
    id: t.exposeID("id"),
    seq: t.exposeInt("seq", { description: "1, 2, 3 … within the tenant: the chain's order" }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    actor: t.field({
      type: AuditActor,
      resolve: (r) => ({ kind: r.actorKind, id: r.actorId, label: r.actorLabel, role: r.actorRole }),
    }),
    ip: t.exposeString("ip", { nullable: true, description: "The client's address" }),
    action: t.exposeString("action", { description: "<thing>.<verb>, e.g. channel.save, apiKey.revoke, login.failed" }),
    targetType: t.exposeString("targetType", { nullable: true }),
    targetId: t.exposeString("targetId", { nullable: true }),
    before: t.expose("before", { type: "JSON", nullable: true, description: "Secrets appear as [secret <fingerprint>]" }),
    after: t.expose("after", { type: "JSON", nullable: true }),
    details: t.expose("details", { type: "JSON", nullable: true }),
    prevHash: t.exposeString("prevHash"),
    hash: t.exposeString("hash", { description: "sha256 of the record's canonical JSON (README, Audit trail)" }),
  }),
});

type AuditRow = Prisma.AuditRecordGetPayload<object>;

const filterInput = z.object({
  action: z.string().max(100).optional(),
  actorId: z.string().max(100).optional(),
  targetType: z.string().max(100).optional(),
  targetId: z.string().max(100).optional(),
  from: z.date().optional(),
  to: z.date().optional(),
});

const filterArgs = builder.args((t) => ({
  action: t.string({ required: false, description: "e.g. channel.save; a prefix ending in a dot (login.) matches every verb" }),
  actorId: t.id({ required: false, description: "An API key's or a user's id" }),
  targetType: t.string({ required: false }),
  targetId: t.id({ required: false }),
  from: t.field({ type: "DateTime", required: false, description: "At or after (ISO 8601)" }),
  to: t.field({ type: "DateTime", required: false, description: "Before (ISO 8601)" }),
}));

function whereOf(filters: z.infer<typeof filterInput>): Prisma.AuditRecordWhereInput {
  const { action, actorId, targetType, targetId, from, to } = filters;
  return {
    ...(action ? { action: action.endsWith(".") ? { startsWith: action } : action } : {}),
    ...(actorId ? { actorId } : {}),
    ...(targetType ? { targetType } : {}),
    ...(targetId ? { targetId } : {}),
    ...(from || to ? { createdAt: { ...(from ? { gte: from } : {}), ...(to ? { lt: to } : {}) } } : {}),
  };
}

interface AuditPage {
  items: AuditRow[];
  where: Prisma.AuditRecordWhereInput;
  page: number;
  limit: number;
}

const AuditRecordPage = builder.objectRef<AuditPage>("AuditRecordPage").implement({
  fields: (t) => ({
    items: t.field({ type: [AuditRecord], resolve: (p) => p.items }),
    total: t.int({
      description: "Records matching the filters",
      resolve: (p, _args, ctx) => ctx.db.auditRecord.count({ where: p.where }),
    }),
    page: t.exposeInt("page"),
    limit: t.exposeInt("limit"),
  }),
});

builder.queryField("auditRecords", (t) =>
  t.field({
    type: AuditRecordPage,
    description:
      "The tenant's audit trail, newest first and paged; or, with afterSeq, oldest first from that point on (how an export reads it all)",
    authScopes: { permission: "configure" },
    args: {
      ...pageArgs,
      ...filterArgs,
      afterSeq: t.arg.int({ required: false, description: "Only records after this seq, oldest first (page is ignored)" }),
    },
    resolve: async (_root, args, ctx): Promise<AuditPage> => {
      const input = parseInput(
        z.object({ ...pagingInput, afterSeq: z.number().int().min(0).optional() }).extend(filterInput.shape),
        args,
      );
      const where = whereOf(input);
      const items =
        input.afterSeq === undefined
          ? await ctx.db.auditRecord.findMany({ where, orderBy: { seq: "desc" }, ...skipTake(input.page, input.limit) })
          : await ctx.db.auditRecord.findMany({
              where: { ...where, seq: { gt: input.afterSeq } },
              orderBy: { seq: "asc" },
              take: input.limit,
            });
      return { items, where, page: input.page, limit: input.limit };
    },
  }),
);

const BrokenLink = builder.objectRef<{ id: string; seq: number; reason: string }>("AuditChainBreak").implement({
  fields: (t) => ({
    id: t.exposeID("id", { description: "The first record where the chain breaks" }),
    seq: t.exposeInt("seq"),
    reason: t.exposeString("reason"),
  }),
});

const Anchor = builder.objectRef<{ seq: number; hash: string }>("AuditChainAnchor").implement({
  description: "The last record retention removed: the chain is verified from it",
  fields: (t) => ({
    seq: t.exposeInt("seq"),
    hash: t.exposeString("hash", { description: "The removed record's hash: the next record's prevHash" }),
  }),
});

const Verification = builder.objectRef<Awaited<ReturnType<typeof verifyAuditChain>>>("AuditChainVerification").implement({
  fields: (t) => ({
    ok: t.exposeBoolean("ok"),
    checked: t.exposeInt("checked", { description: "Records checked, up to the first broken one" }),
    lastSeq: t.exposeInt("lastSeq", { nullable: true }),
    lastHash: t.exposeString("lastHash", {
      nullable: true,
      description: "Keep it: a later verification that still ends on it shows that nothing before it changed",
    }),
    broken: t.field({ type: BrokenLink, nullable: true, resolve: (v) => v.broken }),
    anchor: t.field({
      type: Anchor,
      nullable: true,
      description: "Where verification started, once retention removed the oldest records; null: from the first",
      resolve: (v) => v.anchor,
    }),
  }),
});

builder.queryField("verifyAuditTrail", (t) =>
  t.field({
    type: Verification,
    description:
      "Recomputes every record's hash and link, from the first (or the retention anchor), and names the first record where the chain breaks",
    authScopes: { permission: "configure" },
    resolve: (_root, _args, ctx) => verifyAuditChain(ctx.db, ctx.tenantId),
  }),
);
