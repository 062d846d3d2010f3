import { filter, map, Repeater } from "graphql-yoga";
import { z } from "zod";
import { addNote, noteRole } from "../../conversations/notes.js";
import type { Prisma } from "../../db/generated/prisma/client.js";
import type { InboxPayload } from "../../escalations/inbox.js";
import { batchLoader } from "../batch.js";
import { builder } from "../builder.js";
import type { GraphQLContext } from "../context.js";
import { parseInput } from "../validate.js";
import { maxMessageLength } from "./chat.js";
import { Escalation, InboxEvent } from "./escalations.js";

// What the dashboard's inbox needs beside the conversations API: a preview and the open escalation of each
// conversation in a list, private notes, and every message live.

type MessageRow = Prisma.MessageGetPayload<object>;
type EscalationRow = Prisma.EscalationGetPayload<object>;

/**
 * The newest message that is not a note, of each conversation: one index probe per conversation, in one statement.
 * The probe names the conversation alone: with the tenant beside it, a planner without statistics (PGlite has no
 * autovacuum to gather them) intersected the tenant's whole index on every probe, 1.6 s for 100 conversations of a
 * tenant of 100,000. The messages are then read through the tenant's own client, which keeps them to the tenant.
 */
function lastMessages(ctx: GraphQLContext) {
  return batchLoader<MessageRow>(ctx, "lastMessage", async (conversationIds) => {
    const rows = await ctx.services.db.sql.query<{ id: string }>(
      `SELECT m.id FROM unnest($1::text[]) AS c(id)
         CROSS JOIN LATERAL (SELECT id FROM messages
                              WHERE conversation_id = c.id AND role <> $2
                              ORDER BY created_at DESC, id DESC LIMIT 1) m`,
      [conversationIds, noteRole],
    );
    const messages = await ctx.db.message.findMany({ where: { id: { in: rows.map((r) => r.id) } } });
    return new Map(messages.map((m) => [m.conversationId, m]));
  });
}

function openEscalations(ctx: GraphQLContext) {
  return batchLoader<EscalationRow>(ctx, "openEscalation", async (conversationIds) => {
    const rows = await ctx.db.escalation.findMany({
      where: { conversationId: { in: conversationIds }, status: { not: "resolved" } },
    });
    return new Map(rows.map((e) => [e.conversationId, e]));
  });
}

builder.prismaObjectFields("Conversation", (t) => ({
  lastMessage: t.prismaField({
    type: "Message",
    nullable: true,
    description: "The newest message, private notes left out (a preview for lists)",
    resolve: (_query, conversation, _args, ctx) => lastMessages(ctx)(conversation.id),
  }),
  openEscalation: t.field({
    type: Escalation,
    nullable: true,
    description: "The escalation not yet resolved, if the humans have the conversation: its reason, team and assignee",
    resolve: (conversation, _args, ctx) => openEscalations(ctx)(conversation.id),
  }),
}));

const noteInput = z.object({
  conversationId: z.string().max(100),
  content: z.string().trim().min(1, "must not be empty").max(maxMessageLength, `must be at most ${maxMessageLength} characters`),
});

builder.mutationField("addNote", (t) =>
  t.prismaField({
    type: "Message",
    description:
      "A private note on a conversation (role note), for the tenant's users only: never delivered, never in what the " +
      "customer or the AI sees, and left out of conversationMessages unless includeNotes",
    authScopes: { permission: "converse" },
    audit: { exempt: "a note in a conversation: its transcript records it with the agent's id" },
    args: { conversationId: t.arg.id({ required: true }), content: t.arg.string({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const id = await addNote(ctx.services, ctx.db, ctx.principal!, parseInput(noteInput, args));
      return ctx.db.message.findUniqueOrThrow({ ...query, where: { id } });
    },
  }),
);

builder.subscriptionField("conversationActivity", (t) =>
  t.field({
    type: InboxEvent,
    description:
      "Everything that happens in the tenant's conversations, live, across instances: every message stored (customer, " +
      "AI, agent, private note: type message) and every escalation change; with conversationId, that conversation's only",
    authScopes: { permission: "read" },
    args: { conversationId: t.arg.id({ required: false }) },
    subscribe: (_root, args, ctx) => {
      const { pubsub } = ctx.services.realtime;
      const only = args.conversationId ? String(args.conversationId) : null;
      const events = Repeater.merge([
        pubsub.subscribe("inbox:escalation", ctx.tenantId),
        map((p: { conversationId: string; messageId: string }): InboxPayload => ({ type: "message", ...p }))(
          pubsub.subscribe("conversation:activity", ctx.tenantId),
        ),
      ]);
      return only ? filter((event: InboxPayload) => event.conversationId === only)(events) : events;
    },
    resolve: (event) => event,
  }),
);
