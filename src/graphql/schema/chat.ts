import { z } from "zod";
import { notFound } from "../../errors.js";
import type { InboundMessage } from "../../pipeline/inbound.js";
import { handleInbound, type ReplyMetadata } from "../../pipeline/index.js";
import { assertContinuable } from "../../pipeline/router.js";
import { type ChatEventShape, type ChatHandler, type ChatReplyShape, replyOf, streamReply } from "../../pipeline/stream.js";
import { builder } from "../builder.js";
import type { GraphQLContext } from "../context.js";
import { parseInput } from "../validate.js";

export const maxMessageLength = 4_000;
const chatChannels = ["api", "widget"] as const;

const ChatSource = builder.objectRef<ReplyMetadata["sources"][number]>("ChatSource").implement({
  fields: (t) => ({
    sourceId: t.exposeID("sourceId"),
    title: t.exposeString("title"),
    url: t.exposeString("url", { nullable: true }),
    page: t.exposeInt("page", { nullable: true }),
    similarity: t.exposeFloat("similarity"),
  }),
});

const ChatMetadata = builder.objectRef<Required<ReplyMetadata>>("ChatMetadata").implement({
  fields: (t) => ({
    intent: t.exposeString("intent"),
    confidence: t.exposeFloat("confidence"),
    agentType: t.exposeString("agentType", { description: "faq, support, smalltalk, handoff, fallback (not grounded), human" }),
    tokensUsed: t.exposeInt("tokensUsed"),
    sources: t.field({ type: [ChatSource], resolve: (m) => m.sources }),
    suggestions: t.stringList({
      description:
        "When the assistant cannot answer: the FAQ questions it lists, numbered in the reply; the customer sends a number or the question itself",
      resolve: (m) => m.suggestions,
    }),
  }),
});

const ChatHandlerEnum = builder.enumType("ChatHandler", {
  description: "Who answers the message: the AI, or the bank's team (the conversation waits for or is with a person)",
  values: ["ai", "team"] as const satisfies readonly ChatHandler[],
});

export const ChatReply = builder.objectRef<ChatReplyShape>("ChatReply").implement({
  description: "The spec's Chat reply, and who handles the message",
  fields: (t) => ({
    response: t.exposeString("response", {
      description: "The answer; for the team, the notice that the message is with them (once per wait, else empty)",
    }),
    conversationId: t.exposeID("conversationId"),
    messageId: t.exposeID("messageId", {
      nullable: true,
      description: "The reply's message; null when nothing was said back (the team has it, as the customer was told earlier)",
    }),
    metadata: t.field({ type: ChatMetadata, resolve: (r) => r.metadata }),
    handledBy: t.field({ type: ChatHandlerEnum, resolve: (r) => r.handledBy }),
  }),
});

const ChatError = builder.objectRef<{ error: string; code: string }>("ChatError").implement({
  fields: (t) => ({ error: t.exposeString("error"), code: t.exposeString("code") }),
});

const ChatEvent = builder.objectRef<ChatEventShape>("ChatEvent").implement({
  description: "meta (ids), delta (text as generated), done (the full reply), error",
  fields: (t) => ({
    type: t.exposeString("type"),
    conversationId: t.exposeID("conversationId", { nullable: true }),
    messageId: t.exposeID("messageId", { nullable: true }),
    text: t.exposeString("text", { nullable: true }),
    reply: t.field({ type: ChatReply, nullable: true, resolve: (e) => e.reply ?? null }),
    error: t.field({ type: ChatError, nullable: true, resolve: (e) => e.error ?? null }),
  }),
});

const chatInput = z.object({
  message: z.string().trim().min(1, "must not be empty").max(maxMessageLength, `must be at most ${maxMessageLength} characters`),
  conversationId: z.string().max(100).optional(),
  channel: z.enum(chatChannels).default("api"),
  choice: z.boolean().nullish(),
});

const chatArgs = builder.args((t) => ({
  message: t.string({ required: true }),
  conversationId: t.id({ required: false, description: "Continue this conversation; omitted: start a new one" }),
  channel: t.string({ required: false, description: "api (default) or widget" }),
  choice: t.boolean({
    required: false,
    description:
      "true when the message is one of the questions a decline listed (metadata.suggestions), chosen by the customer from buttons: analytics count it",
  }),
}));

/** Validated input; an unknown (or another tenant's) conversation is refused before any work starts. */
async function inboundOf(ctx: GraphQLContext, args: unknown): Promise<InboundMessage> {
  const input = parseInput(chatInput, args);
  // Checked before a stream opens, so that a client gets the error as the response's status, not as an event.
  if (input.conversationId) {
    const named = await ctx.db.conversation.findUnique({
      where: { id: input.conversationId },
      select: { channel: true, status: true },
    });
    if (!named) throw notFound("Conversation");
    assertContinuable(named, input.channel);
  }
  return {
    tenantId: ctx.tenantId,
    channel: input.channel,
    customer: { id: null },
    text: input.message,
    conversationId: input.conversationId ?? null,
    ...(input.choice && { choice: true }),
  };
}

builder.mutationField("chat", (t) =>
  t.field({
    type: ChatReply,
    description: "Sends a customer message through the pipeline and returns the reply",
    authScopes: { permission: "converse" },
    audit: { exempt: "a customer conversation: its transcript and timeline record it" },
    args: chatArgs,
    resolve: async (_root, args, ctx) => replyOf(await handleInbound(ctx.services, await inboundOf(ctx, args)), "inline"),
  }),
);

builder.subscriptionField("chatStream", (t) =>
  t.field({
    type: ChatEvent,
    description: "The same as chat, streamed: meta, then delta events as the answer is generated, then done (or error)",
    authScopes: { permission: "converse" },
    args: chatArgs,
    subscribe: async (_root, args, ctx) => streamReply(ctx.services, await inboundOf(ctx, args), "inline"),
    resolve: (event) => event,
  }),
);
