import { z } from "zod";
import type { Services } from "../services.js";
import { runOperation } from "./execute.js";
import {
  type ConversationFieldsFragment,
  GetConversationDocument,
  ListConversationMessagesDocument,
  ListConversationsDocument,
  ReplyToConversationDocument,
} from "./generated.js";
import { objectBody, pagingQuery, queryVariable, type RestRoute, textVariable } from "./route.js";

/** The spec's Conversation list item. */
function conversationItem(c: ConversationFieldsFragment) {
  return {
    id: c.id,
    channel: c.channel,
    status: c.status,
    customer_phone: c.customerPhone,
    message_count: c.messageCount,
    created_at: c.createdAt,
    updated_at: c.updatedAt,
  };
}

const ConversationItem = z.object({
  id: z.string(),
  channel: z.string(),
  status: z.string(),
  customer_phone: z.string().nullable(),
  message_count: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
});

const MessageRecord = z.object({
  id: z.string(),
  conversationId: z.string(),
  role: z.enum(["customer", "assistant", "agent", "system"]),
  content: z.string(),
  createdAt: z.string(),
  metadata: z.record(z.string(), z.unknown()),
  delivery: z.object({ status: z.string(), attempts: z.number().int(), error: z.string().nullable() }).nullable(),
  feedback: z
    .object({ rating: z.enum(["up", "down"]), comment: z.string().nullable() })
    .nullable()
    .describe("the customer's rating of an AI reply"),
});

const TimelineEvent = z.object({
  type: z.string().describe("status (a transition), assignment, or queued (a hand-off asked for out of business hours)"),
  from: z.string().nullable(),
  to: z.string().nullable(),
  actor: z.string().describe("customer, ai, system, or the user or API key id"),
  reason: z.string().nullable(),
  at: z.string(),
});

export function conversationRoutes(services: Services): RestRoute[] {
  return [
    {
      method: "get",
      path: "/api/conversations",
      tag: "Conversations",
      summary: "List conversations, most recently updated first",
      query: z.object({
        ...pagingQuery,
        status: z.enum(["open", "escalated", "assigned", "resolved", "closed"]).optional(),
        channel: z.string().optional(),
        from: z.string().optional().describe("created at or after (ISO 8601)"),
        to: z.string().optional().describe("created at or before (ISO 8601)"),
        q: z.string().optional().describe("customer phone, name or id, or message text"),
      }),
      response: {
        status: 200,
        description: "A page of conversations",
        schema: z.object({ conversations: z.array(ConversationItem), total: z.number(), page: z.number(), limit: z.number() }),
      },
      errors: [401, 403, 422, 429],
      async handle(req) {
        const q = req.query;
        const { conversations } = await runOperation(services, req, ListConversationsDocument, {
          page: queryVariable(q.page) as number,
          limit: queryVariable(q.limit) as number,
          status: textVariable(q.status) as never,
          channel: textVariable(q.channel) as never,
          from: textVariable(q.from),
          to: textVariable(q.to),
          q: textVariable(q.q),
        });
        return {
          conversations: conversations.items.map(conversationItem),
          total: conversations.total,
          page: conversations.page,
          limit: conversations.limit,
        };
      },
    },
    {
      method: "get",
      path: "/api/conversations/:id",
      tag: "Conversations",
      summary: "One conversation",
      response: {
        status: 200,
        description: "The conversation",
        schema: ConversationItem.extend({
          customer_id: z.string().nullable(),
          customer_name: z.string().nullable(),
          timeline: z.array(TimelineEvent).describe("every status change and assignment, oldest first"),
        }),
      },
      errors: [401, 403, 404, 429],
      async handle(req) {
        const { conversation } = await runOperation(services, req, GetConversationDocument, { id: String(req.params.id) });
        return {
          ...conversationItem(conversation),
          customer_id: conversation.customerId,
          customer_name: conversation.customerName,
          timeline: conversation.timeline.map((e) => ({
            type: e.type,
            from: e.fromStatus,
            to: e.toStatus,
            actor: e.actor,
            reason: e.reason,
            at: e.createdAt,
          })),
        };
      },
    },
    {
      method: "get",
      path: "/api/conversations/:id/messages",
      tag: "Conversations",
      summary: "A conversation's messages, oldest first",
      query: z.object({ page: pagingQuery.page, limit: z.number().int().min(1).max(100).optional().describe("default 50") }),
      response: {
        status: 200,
        description: "A page of messages",
        schema: z.object({ messages: z.array(MessageRecord), total: z.number(), page: z.number(), limit: z.number() }),
      },
      errors: [401, 403, 404, 422, 429],
      async handle(req) {
        const { conversationMessages: page } = await runOperation(services, req, ListConversationMessagesDocument, {
          conversationId: String(req.params.id),
          page: queryVariable(req.query.page) as number,
          limit: queryVariable(req.query.limit) as number,
        });
        return { messages: page.items, total: page.total, page: page.page, limit: page.limit };
      },
    },
    {
      method: "post",
      path: "/api/conversations/:id/messages",
      tag: "Conversations",
      summary:
        "An agent's reply to the customer of an escalated or assigned conversation (422 otherwise), delivered on the " +
        "customer's own channel; replying to an unassigned escalation takes it",
      body: z.object({ content: z.string() }),
      response: { status: 201, description: "The stored reply, its delivery pending or done", schema: MessageRecord },
      errors: [401, 403, 404, 422, 429],
      async handle(req) {
        const { replyToConversation } = await runOperation(services, req, ReplyToConversationDocument, {
          conversationId: String(req.params.id),
          content: objectBody(req.body).content as string,
        });
        return replyToConversation;
      },
    },
  ];
}
