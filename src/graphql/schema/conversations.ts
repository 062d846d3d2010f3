import { z } from "zod";
import { type ChannelName, channelNames } from "../../channels/names.js";
import { conversationWhere, withConversationFilter } from "../../conversations/filter.js";
import { noteRole } from "../../conversations/notes.js";
import { type ConversationStatus, conversationStatuses } from "../../conversations/status.js";
import type { Prisma } from "../../db/generated/prisma/client.js";
import { notFound } from "../../errors.js";
import { builder } from "../builder.js";
import { type Page, pageArgs, pageOf, pagingInput, skipTake } from "../paging.js";
import { parseInput } from "../validate.js";

export const ConversationStatusEnum = builder.enumType("ConversationStatus", { values: conversationStatuses });
export const ChannelEnum = builder.enumType("Channel", { values: channelNames });

export const Conversation = builder.prismaObject("Conversation", {
  fields: (t) => ({
    id: t.exposeID("id"),
    channel: t.field({ type: ChannelEnum, resolve: (c) => c.channel as ChannelName }),
    status: t.field({ type: ConversationStatusEnum, resolve: (c) => c.status as ConversationStatus }),
    customerPhone: t.exposeString("customerPhone", { nullable: true, description: "E.164 with a leading +" }),
    customerId: t.exposeString("customerId", { nullable: true, description: "The channel's sender id" }),
    customerName: t.exposeString("customerName", { nullable: true }),
    messageCount: t.exposeInt("messageCount"),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
  }),
});

const Delivery = builder.objectRef<{ status: string; attempts: number; error: string | null }>("Delivery").implement({
  fields: (t) => ({
    status: t.exposeString("status"),
    attempts: t.exposeInt("attempts"),
    error: t.exposeString("error", { nullable: true }),
  }),
});

export const Message = builder.prismaObject("Message", {
  fields: (t) => ({
    id: t.exposeID("id"),
    conversationId: t.exposeString("conversationId"),
    role: t.exposeString("role"),
    content: t.exposeString("content"),
    metadata: t.expose("metadata", { type: "JSON" }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    delivery: t.field({
      type: Delivery,
      nullable: true,
      description: "Outbound delivery to the customer's channel; null for messages that are not sent anywhere",
      resolve: (m) =>
        m.deliveryStatus ? { status: m.deliveryStatus, attempts: m.deliveryAttempts, error: m.deliveryError } : null,
    }),
  }),
});

type ConversationRow = Prisma.ConversationGetPayload<object>;
type MessageRow = Prisma.MessageGetPayload<object>;
const ConversationPage = pageOf<ConversationRow>("ConversationPage", Conversation);
const MessagePage = pageOf<MessageRow>("MessagePage", Message);

// The inbox's queues and filters come on top of the list's own (shared with the transcript export).
const listInput = withConversationFilter({
  ...pagingInput,
  intent: z.string().trim().min(1).max(100).nullish(),
  customerId: z.string().min(1).max(200).nullish(),
  mine: z.boolean().nullish(),
  unassigned: z.boolean().nullish(),
});

builder.queryField("conversations", (t) =>
  t.field({
    type: ConversationPage,
    description: "The tenant's conversations, most recently updated first",
    authScopes: { permission: "read" },
    args: {
      ...pageArgs,
      status: t.arg({ type: ConversationStatusEnum, required: false }),
      channel: t.arg({ type: ChannelEnum, required: false }),
      from: t.arg({ type: "DateTime", required: false, description: "Created at or after (ISO 8601)" }),
      to: t.arg({ type: "DateTime", required: false, description: "Created at or before (ISO 8601)" }),
      q: t.arg.string({ required: false, description: "Matches the customer's phone, name or id, or message text" }),
      intent: t.arg.string({ required: false, description: "Conversations with a customer message of this intent" }),
      customerId: t.arg.string({ required: false, description: "One customer's conversations (their channel sender id)" }),
      mine: t.arg.boolean({
        required: false,
        description: "Conversations whose open escalation the caller (a logged-in agent) has",
      }),
      unassigned: t.arg.boolean({ required: false, description: "Conversations waiting for a human that nobody has taken" }),
    },
    resolve: async (_root, args, ctx): Promise<Page<ConversationRow>> => {
      const input = parseInput(listInput, args);
      const waiting: Prisma.EscalationWhereInput[] = [
        ...(input.mine ? [{ status: { not: "resolved" }, assigneeId: ctx.principal!.id }] : []),
        ...(input.unassigned ? [{ status: "open", assigneeId: null }] : []),
      ];
      const where: Prisma.ConversationWhereInput = {
        ...conversationWhere(input),
        AND: [
          ...waiting.map((escalation) => ({ escalations: { some: escalation } })),
          ...(input.intent
            ? [{ messages: { some: { role: "customer", metadata: { path: ["intent"], equals: input.intent } } } }]
            : []),
        ],
        ...(input.customerId ? { customerId: input.customerId } : {}),
      };
      const [items, total] = await Promise.all([
        ctx.db.conversation.findMany({
          where,
          orderBy: [{ updatedAt: "desc" }, { id: "desc" }],
          ...skipTake(input.page, input.limit),
        }),
        ctx.db.conversation.count({ where }),
      ]);
      return { items, total, page: input.page, limit: input.limit };
    },
  }),
);

builder.queryField("conversation", (t) =>
  t.prismaField({
    type: "Conversation",
    authScopes: { permission: "read" },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const found = await ctx.db.conversation.findUnique({ ...query, where: { id: String(args.id) } });
      if (!found) throw notFound("Conversation");
      return found;
    },
  }),
);

builder.queryField("conversationMessages", (t) =>
  t.field({
    type: MessagePage,
    description: "A conversation's messages, oldest first",
    authScopes: { permission: "read" },
    args: {
      ...pageArgs,
      conversationId: t.arg.id({ required: true }),
      includeNotes: t.arg.boolean({
        required: false,
        description: "With the agents' private notes (role note), which the customer never sees (default false)",
      }),
    },
    resolve: async (_root, args, ctx): Promise<Page<MessageRow>> => {
      const input = parseInput(z.object({ ...pagingInput, limit: pagingInput.limit.default(50) }), {
        page: args.page ?? undefined,
        limit: args.limit ?? undefined,
      });
      const conversationId = String(args.conversationId);
      const conversation = await ctx.db.conversation.findUnique({ where: { id: conversationId }, select: { id: true } });
      if (!conversation) throw notFound("Conversation");
      const where = { conversationId, ...(args.includeNotes ? {} : { role: { not: noteRole } }) };
      const [items, total] = await Promise.all([
        ctx.db.message.findMany({ where, orderBy: [{ createdAt: "asc" }, { id: "asc" }], ...skipTake(input.page, input.limit) }),
        ctx.db.message.count({ where }),
      ]);
      return { items, total, page: input.page, limit: input.limit };
    },
  }),
);
