import { type ErasedCounts, type Erasure, eraseCustomer, type HeldBack } from "../../retention/erase.js";
import { placeHold, releaseHold } from "../../retention/holds.js";
import { customerIdentityInput, subjectOf } from "../../retention/identity.js";
import {
  type DataClass,
  dataClasses,
  minimumDays,
  type RetentionPeriods,
  retentionInput,
  retentionOf,
} from "../../retention/periods.js";
import { enqueueRetention } from "../../retention/schedule.js";
import { updateTenantSettings } from "../../tenants/settings.js";
import { builder } from "../builder.js";
import type { GraphQLContext } from "../context.js";
import { parseInput } from "../validate.js";

const classDescriptions: Record<DataClass, string> = {
  messages: "Conversation transcripts (messages, their sources, ratings, escalations, timeline), by last activity",
  identities: "Customers' phone numbers, channel ids and names kept on conversations, by last activity",
  auditRecords: "Audit records, oldest first; the trail then verifies from an anchor",
  knowledgeFiles: "Uploaded knowledge files (PDFs), by last sync; their indexed text stays",
  deliveryLogs: "Event notifications sent to the tenant's endpoints, with their delivery logs",
};

const Periods = builder.objectRef<RetentionPeriods>("RetentionPeriods").implement({
  description: "Days each kind of data is kept; null: for ever",
  fields: (t) =>
    Object.fromEntries(
      dataClasses.map((c) => [c, t.int({ nullable: true, description: classDescriptions[c], resolve: (p) => p[c] })]),
    ) as Record<DataClass, ReturnType<typeof t.int>>,
});

builder.prismaObjectField("Tenant", "retention", (t) =>
  t.field({
    type: Periods,
    description: "How long the tenant keeps each kind of data",
    resolve: (tenant) => retentionOf(tenant.settings),
  }),
);

const PeriodsInput = builder.inputType("RetentionPeriodsInput", {
  fields: (t) =>
    Object.fromEntries(
      dataClasses.map((c) => [
        c,
        t.int({
          required: false,
          description: `${classDescriptions[c]}. At least ${minimumDays[c]} days; null or omitted: for ever`,
        }),
      ]),
    ) as Record<DataClass, ReturnType<typeof t.int>>,
});

builder.mutationField("setRetention", (t) =>
  t.prismaField({
    type: "Tenant",
    description: "Sets how long each kind of data is kept (all at once: a class left out is kept for ever)",
    authScopes: { permission: "configure" },
    audit: { action: "settings.update", target: "tenant", id: (_args, ctx) => ctx.tenantId },
    args: { periods: t.arg({ type: PeriodsInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const input = parseInput(retentionInput, args.periods);
      const retention = Object.fromEntries(dataClasses.map((c) => [c, input[c] ?? null]));
      return updateTenantSettings(ctx, query, (current) => ({ ...current, retention }));
    },
  }),
);

builder.mutationField("runRetention", (t) =>
  t.id({
    description:
      "Applies the retention periods now rather than at the next scheduled run (every 6 hours); returns the job's id (a run already waiting is reused)",
    authScopes: { permission: "configure" },
    // Who asked for a run; the run itself writes its own retention.run record, with its counts.
    audit: { action: "retention.request", target: "tenant", id: (_args, ctx) => ctx.tenantId },
    resolve: (_root, _args, ctx) => enqueueRetention(ctx.services, ctx.tenantId),
  }),
);

const CustomerIdentityInput = builder.inputType("CustomerIdentityInput", {
  description: "A customer: their id on one channel (channel and customerId), or their phone number on every channel",
  fields: (t) => ({
    channel: t.string({ required: false, description: "widget, chatapp, sms, …" }),
    customerId: t.string({ required: false, description: "The customer's id on that channel (a conversation's customerId)" }),
    phone: t.string({ required: false, description: "A phone number (E.164): matches conversations on every channel" }),
  }),
});

const CustomerIdentity = builder
  .objectRef<{ channel: string | null; customerId: string | null; phone: string | null }>("CustomerIdentity")
  .implement({
    fields: (t) => ({
      channel: t.exposeString("channel", { nullable: true }),
      customerId: t.exposeString("customerId", { nullable: true }),
      phone: t.exposeString("phone", { nullable: true }),
    }),
  });

builder.prismaObject("LegalHold", {
  description: "Keeps a conversation or a customer's data from retention and erasure until released",
  fields: (t) => ({
    id: t.exposeID("id"),
    conversationId: t.exposeID("conversationId", {
      nullable: true,
      description: "The conversation held, or null for a customer",
    }),
    customer: t.field({
      type: CustomerIdentity,
      nullable: true,
      description: "The customer held, or null for a conversation",
      resolve: (h) => (h.conversationId ? null : { channel: h.channel, customerId: h.customerId, phone: h.customerPhone }),
    }),
    reason: t.exposeString("reason"),
    placedBy: t.exposeString("placedBy", { description: "The user's or API key's id" }),
    placedByLabel: t.exposeString("placedByLabel", { nullable: true, description: "Their e-mail or key prefix" }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    active: t.boolean({ resolve: (h) => h.releasedAt === null }),
    releasedAt: t.expose("releasedAt", { type: "DateTime", nullable: true }),
    releasedBy: t.exposeString("releasedBy", { nullable: true }),
    releaseReason: t.exposeString("releaseReason", { nullable: true }),
  }),
});

builder.queryField("legalHolds", (t) =>
  t.prismaField({
    type: ["LegalHold"],
    description: "The tenant's legal holds, newest first",
    authScopes: { permission: "configure" },
    args: { active: t.arg.boolean({ required: false, description: "true: only those in force; false: only released ones" }) },
    resolve: (query, _root, args, ctx) =>
      ctx.db.legalHold.findMany({
        ...query,
        where: args.active === true ? { releasedAt: null } : args.active === false ? { releasedAt: { not: null } } : {},
        orderBy: { createdAt: "desc" },
      }),
  }),
);

builder.mutationField("placeLegalHold", (t) =>
  t.prismaField({
    type: "LegalHold",
    description: "Holds a conversation, or a customer (on one channel, or by phone on every channel), with the reason",
    authScopes: { permission: "configure" },
    audit: { action: "legalHold.place", target: "legalHold", id: (_args, _ctx, result) => result?.id },
    args: {
      conversationId: t.arg.id({ required: false }),
      customer: t.arg({ type: CustomerIdentityInput, required: false }),
      reason: t.arg.string({ required: true, description: "Why: the matter, case or request it serves" }),
    },
    resolve: (_query, _root, args, ctx) => placeHold(ctx.db, ctx.principal!, args),
  }),
);

builder.mutationField("releaseLegalHold", (t) =>
  t.prismaField({
    type: "LegalHold",
    description: "Releases a hold, with the reason; what it covered is subject to retention and erasure again",
    authScopes: { permission: "configure" },
    audit: { action: "legalHold.release", target: "legalHold", id: (args) => String(args.id) },
    args: { id: t.arg.id({ required: true }), reason: t.arg.string({ required: true }) },
    resolve: (_query, _root, args, ctx) => releaseHold(ctx.db, ctx.principal!, args),
  }),
);

const Counts = builder.objectRef<ErasedCounts>("ErasedCounts").implement({
  fields: (t) => ({
    conversations: t.exposeInt("conversations"),
    messages: t.exposeInt("messages"),
    feedback: t.exposeInt("feedback", { description: "Ratings of the AI's replies" }),
    surveys: t.exposeInt("surveys", { description: "Satisfaction questions and scores" }),
    escalations: t.exposeInt("escalations"),
    timelineEvents: t.exposeInt("timelineEvents", { description: "Status changes, assignments and agents' notes" }),
    webhookEvents: t.exposeInt("webhookEvents", { description: "Event notifications that carried them, with delivery logs" }),
    jobs: t.exposeInt("jobs", { description: "Finished records of the customer's inbound messages as received" }),
  }),
});

const Held = builder.objectRef<HeldBack>("HeldBack").implement({
  description: "A conversation kept because a legal hold covers it",
  fields: (t) => ({
    conversationId: t.exposeID("conversationId"),
    holdId: t.exposeID("holdId"),
    reason: t.exposeString("reason", { description: "The hold's reason" }),
  }),
});

const ErasureResult = builder.objectRef<Erasure & { subject: string }>("Erasure").implement({
  description: "What a data-subject request erased (counts) and what legal holds kept",
  fields: (t) => ({
    subject: t.exposeString("subject", {
      description: "The customer as the audit trail names them: a keyed digest of the identity, never the identity",
    }),
    erased: t.field({ type: Counts, resolve: (e) => e.erased }),
    heldBack: t.field({ type: [Held], resolve: (e) => e.heldBack }),
  }),
});

const subject = (args: { customer: unknown }, ctx: GraphQLContext) =>
  subjectOf(parseInput(customerIdentityInput, args.customer), (s) => ctx.services.secrets.fingerprint(s));

builder.mutationField("eraseCustomer", (t) =>
  t.field({
    type: ErasureResult,
    description:
      "Erases one customer's data on every channel (a data-subject request); what a legal hold covers is kept and listed. Running it again erases only what arrived since",
    authScopes: { permission: "configure" },
    audit: {
      action: "customer.erase",
      target: "customer",
      id: (args, ctx) => subject(args, ctx),
      details: (_args, result) => ({
        erased: result.erased,
        heldBack: result.heldBack.map(({ conversationId, holdId }) => ({ conversationId, holdId })),
      }),
    },
    args: { customer: t.arg({ type: CustomerIdentityInput, required: true }) },
    resolve: async (_root, args, ctx) => {
      const identity = parseInput(customerIdentityInput, args.customer);
      const erasure = await eraseCustomer(ctx.db, ctx.tenantId, identity);
      return { ...erasure, subject: subject(args, ctx) };
    },
  }),
);
