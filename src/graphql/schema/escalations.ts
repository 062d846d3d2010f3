import { map, Repeater } from "graphql-yoga";
import { z } from "zod";
import { escalateConversation } from "../../conversations/escalate.js";
import type { Prisma } from "../../db/generated/prisma/client.js";
import { notFound } from "../../errors.js";
import type { InboxEventType, InboxPayload } from "../../escalations/inbox.js";
import { escalationPriorities, escalationReasons, escalationStatuses } from "../../escalations/model.js";
import { replyAsAgent } from "../../escalations/reply.js";
import { updateEscalation } from "../../escalations/update.js";
import { builder } from "../builder.js";
import { type Page, pageArgs, pageOf, pagingInput, skipTake } from "../paging.js";
import { parseInput } from "../validate.js";
import { maxMessageLength } from "./chat.js";

export const EscalationReasonEnum = builder.enumType("EscalationReason", { values: escalationReasons });
export const EscalationPriorityEnum = builder.enumType("EscalationPriority", { values: escalationPriorities });
export const EscalationStatusEnum = builder.enumType("EscalationStatus", { values: escalationStatuses });

export const Escalation = builder.prismaObject("Escalation", {
  description: "A conversation handed to the humans",
  fields: (t) => ({
    id: t.exposeID("id"),
    conversationId: t.exposeString("conversationId"),
    conversation: t.relation("conversation"),
    reason: t.field({ type: EscalationReasonEnum, resolve: (e) => e.reason as (typeof escalationReasons)[number] }),
    priority: t.field({ type: EscalationPriorityEnum, resolve: (e) => e.priority as (typeof escalationPriorities)[number] }),
    status: t.field({ type: EscalationStatusEnum, resolve: (e) => e.status as (typeof escalationStatuses)[number] }),
    team: t.relation("team", { nullable: true }),
    assignee: t.relation("assignee", { nullable: true }),
    note: t.exposeString("note", { nullable: true }),
    createdBy: t.exposeString("createdBy", { description: "ai (the router), or the user or API key id that escalated" }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
    assignedAt: t.expose("assignedAt", { type: "DateTime", nullable: true }),
    firstResponseAt: t.expose("firstResponseAt", {
      type: "DateTime",
      nullable: true,
      description: "When an agent first replied to the customer",
    }),
    resolvedAt: t.expose("resolvedAt", { type: "DateTime", nullable: true }),
  }),
});

builder.prismaObjectField("Conversation", "escalations", (t) =>
  t.relation("escalations", {
    description: "The conversation's escalations, newest first",
    query: { orderBy: { createdAt: "desc" } },
  }),
);

type EscalationRow = Prisma.EscalationGetPayload<object>;
const EscalationPage = pageOf<EscalationRow>("EscalationPage", Escalation);

builder.queryField("escalations", (t) =>
  t.field({
    type: EscalationPage,
    description: "Escalations, newest first",
    authScopes: { permission: "read" },
    args: {
      ...pageArgs,
      status: t.arg({ type: EscalationStatusEnum, required: false }),
      priority: t.arg({ type: EscalationPriorityEnum, required: false }),
      assigneeId: t.arg.id({ required: false }),
      mine: t.arg.boolean({ required: false, description: "Only the caller's own (a logged-in agent)" }),
      teamId: t.arg.id({ required: false }),
    },
    resolve: async (_root, args, ctx): Promise<Page<EscalationRow>> => {
      const input = parseInput(z.object(pagingInput), args);
      const assigneeId = args.mine ? ctx.principal!.id : args.assigneeId ? String(args.assigneeId) : undefined;
      const where: Prisma.EscalationWhereInput = {
        ...(args.status ? { status: args.status } : {}),
        ...(args.priority ? { priority: args.priority } : {}),
        ...(assigneeId ? { assigneeId } : {}),
        ...(args.teamId ? { teamId: String(args.teamId) } : {}),
      };
      const [items, total] = await Promise.all([
        ctx.db.escalation.findMany({
          where,
          orderBy: [{ createdAt: "desc" }, { id: "desc" }],
          ...skipTake(input.page, input.limit),
        }),
        ctx.db.escalation.count({ where }),
      ]);
      return { items, total, page: input.page, limit: input.limit };
    },
  }),
);

builder.queryField("escalation", (t) =>
  t.prismaField({
    type: "Escalation",
    authScopes: { permission: "read" },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const found = await ctx.db.escalation.findUnique({ ...query, where: { id: String(args.id) } });
      if (!found) throw notFound("Escalation");
      return found;
    },
  }),
);

const createInput = z.object({
  conversationId: z.string().max(100),
  reason: z.enum(escalationReasons).default("manual"),
  priority: z.enum(escalationPriorities).optional(),
  teamId: z.string().max(100).optional(),
  note: z.string().trim().max(2_000).optional(),
});

builder.mutationField("createEscalation", (t) =>
  t.prismaField({
    type: "Escalation",
    description: "Hands a conversation the AI has to the humans; the customer is told, and an online agent given it",
    authScopes: { permission: "converse" },
    audit: { action: "escalation.create", target: "escalation", id: (_args, _ctx, escalation) => escalation?.id },
    args: {
      conversationId: t.arg.id({ required: true }),
      reason: t.arg({ type: EscalationReasonEnum, required: false, description: "Defaults to manual" }),
      priority: t.arg({ type: EscalationPriorityEnum, required: false, description: "Defaults by reason" }),
      teamId: t.arg.id({ required: false, description: "Defaults to the team of the conversation's intent" }),
      note: t.arg.string({ required: false }),
    },
    resolve: async (query, _root, args, ctx) => {
      const input = parseInput(createInput, args);
      const conversation = await ctx.db.conversation.findUnique({ where: { id: input.conversationId } });
      if (!conversation) throw notFound("Conversation");
      const lastAsked = await ctx.db.message.findFirst({
        where: { conversationId: conversation.id, role: "customer" },
        orderBy: { createdAt: "desc" },
        select: { metadata: true },
      });
      const { escalationId } = await escalateConversation(ctx.services, conversation, input.reason, {
        actor: ctx.principal!.id,
        intent: (lastAsked?.metadata as { intent?: string } | undefined)?.intent ?? null,
        priority: input.priority,
        teamId: input.teamId,
        note: input.note,
      });
      return ctx.db.escalation.findUniqueOrThrow({ ...query, where: { id: escalationId } });
    },
  }),
);

const updateInput = z.object({
  status: z.enum(escalationStatuses).optional(),
  priority: z.enum(escalationPriorities).optional(),
  note: z.string().trim().max(2_000).optional(),
});

/** A nullable id argument: omitted leaves it, null clears it. */
const nullableId = (value: string | number | null | undefined) =>
  value === undefined ? undefined : value === null ? null : String(value);

builder.mutationField("updateEscalation", (t) =>
  t.prismaField({
    type: "Escalation",
    description:
      "Works an escalation: assigneeId (an agent, or null back to the queue), status (resolved hands the conversation " +
      "back to the AI), priority, teamId, note. Agents work unassigned and their own escalations; admins any.",
    authScopes: { permission: "converse" },
    audit: { action: "escalation.update", target: "escalation", id: (args) => String(args.id) },
    args: {
      id: t.arg.id({ required: true }),
      status: t.arg({ type: EscalationStatusEnum, required: false }),
      assigneeId: t.arg.id({ required: false }),
      priority: t.arg({ type: EscalationPriorityEnum, required: false }),
      teamId: t.arg.id({ required: false }),
      note: t.arg.string({ required: false }),
    },
    resolve: async (query, _root, args, ctx) => {
      const id = String(args.id);
      const input = parseInput(updateInput, args);
      await updateEscalation(ctx.services, ctx.db, ctx.principal!, id, {
        ...input,
        assigneeId: nullableId(args.assigneeId),
        teamId: nullableId(args.teamId),
      });
      return ctx.db.escalation.findUniqueOrThrow({ ...query, where: { id } });
    },
  }),
);

const replyInput = z.object({
  conversationId: z.string().max(100),
  content: z.string().trim().min(1, "must not be empty").max(maxMessageLength, `must be at most ${maxMessageLength} characters`),
});

builder.mutationField("replyToConversation", (t) =>
  t.prismaField({
    type: "Message",
    description:
      "An agent's reply to the customer of an escalated or assigned conversation, delivered on the customer's own channel. " +
      "Replying to an unassigned escalation takes it.",
    authScopes: { permission: "converse" },
    audit: { exempt: "a message to a customer: the transcript records it with the agent's id" },
    args: { conversationId: t.arg.id({ required: true }), content: t.arg.string({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const id = await replyAsAgent(ctx.services, ctx.db, ctx.principal!, parseInput(replyInput, args));
      return ctx.db.message.findUniqueOrThrow({ ...query, where: { id } });
    },
  }),
);

const InboxEventTypeEnum = builder.enumType("InboxEventType", {
  values: ["escalated", "assigned", "unassigned", "resolved", "updated", "message"] satisfies InboxEventType[],
});

export const InboxEvent = builder.objectRef<InboxPayload>("InboxEvent").implement({
  description: "A new or changed escalation, or a customer message in a conversation the humans have",
  fields: (t) => ({
    type: t.field({ type: InboxEventTypeEnum, resolve: (e) => e.type }),
    conversationId: t.exposeID("conversationId"),
    escalation: t.prismaField({
      type: "Escalation",
      nullable: true,
      resolve: (query, e, _args, ctx) =>
        e.escalationId ? ctx.db.escalation.findUnique({ ...query, where: { id: e.escalationId } }) : null,
    }),
    message: t.prismaField({
      type: "Message",
      nullable: true,
      resolve: (query, e, _args, ctx) =>
        e.messageId ? ctx.db.message.findUnique({ ...query, where: { id: e.messageId } }) : null,
    }),
  }),
});

builder.subscriptionField("inbox", (t) =>
  t.field({
    type: InboxEvent,
    description: "The agents' inbox, live: escalations as they appear and change, and customer messages to the humans",
    authScopes: { permission: "read" },
    subscribe: (_root, _args, ctx) => {
      const { pubsub } = ctx.services.realtime;
      return Repeater.merge([
        pubsub.subscribe("inbox:escalation", ctx.tenantId),
        map((p: { conversationId: string; messageId: string }): InboxPayload => ({ type: "message", ...p }))(
          pubsub.subscribe("inbox:message", ctx.tenantId),
        ),
      ]);
    },
    resolve: (event) => event,
  }),
);
