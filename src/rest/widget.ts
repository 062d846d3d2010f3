import { z } from "zod";
import { widgetConfig } from "../channels/widget.js";
import { authenticateWidget } from "../channels/widget-access.js";
import {
  currentConversation,
  newVisitorId,
  recentMessages,
  repliedRoles,
  requireVisitorId,
  visitorConversation,
  visitorIdOf,
  visitorMessage,
  visitorMessageFields,
} from "../channels/widget-visitor.js";
import { disclosureFor } from "../conversations/disclosure.js";
import { maxMessageLength } from "../graphql/schema/chat.js";
import { parseInput } from "../graphql/validate.js";
import type { RateLimits } from "../http/rate-limit.js";
import type { InboundMessage } from "../pipeline/inbound.js";
import { handleInbound } from "../pipeline/index.js";
import { replyOf, streamReply } from "../pipeline/stream.js";
import type { Services } from "../services.js";
import { ChatReply, chatStreamEvent, replyBody, wantsStream } from "./chat.js";
import { runOperation } from "./execute.js";
import { CreateWidgetTokenDocument } from "./generated.js";
import type { RestRoute } from "./route.js";
import { sendEventStream } from "./sse.js";

const tag = "Widget";
const widgetAuth = "X-Widget-Token, from a page whose origin is on the channel's allow-list";

const VisitorMessage = z.object({
  id: z.string(),
  role: z.enum(["customer", "assistant", "agent", "system"]),
  content: z.string(),
  kind: z.string().nullable().describe("disclosure (the AI disclosure), survey (the satisfaction question), or null"),
  suggestions: z
    .array(z.string())
    .describe("the FAQ questions an assistant's decline lists, numbered in its content; else empty"),
  created_at: z.string(),
});

const WidgetInit = z.object({
  visitor_id: z.string().describe("the browser keeps it and sends it back as X-Widget-Visitor"),
  conversation: z.object({ id: z.string(), status: z.string() }).nullable().describe("null until the visitor first writes"),
  config: z.object({
    title: z.string(),
    greeting: z.string().nullable(),
    position: z.string(),
    streaming: z.boolean(),
    colors: z.object({ primary: z.string(), background: z.string(), text: z.string() }),
    disclosure: z.string().nullable().describe("the AI disclosure, shown before the visitor's first message"),
  }),
  messages: z.array(VisitorMessage).describe("the latest 50, oldest first"),
});

const messageInput = z.object({
  message: z.string().trim().min(1, "must not be empty").max(maxMessageLength, `must be at most ${maxMessageLength} characters`),
  stream: z.boolean().optional(),
  choice: z
    .boolean()
    .optional()
    .describe("true when the message is one of the questions a decline listed, pressed by the visitor: analytics count it"),
});

// The replies a feed starts with: what a widget that reconnects may have missed.
const feedSnapshot = 20;

/** The subscription with its listener attached at once (a pubsub subscription starts listening when first read). */
function listeningNow<T>(subscription: AsyncIterableIterator<T>): AsyncIterableIterator<T> {
  let started: Promise<IteratorResult<T>> | null = subscription.next();
  // Its reader gets a failure when it reads; until then the failure must not count as unhandled and end the process.
  started.catch(() => undefined);
  return {
    next() {
      const result = started ?? subscription.next();
      started = null;
      return result;
    },
    return: () => subscription.return!(),
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

export function widgetRoutes(services: Services, limits: RateLimits): RestRoute[] {
  return [
    {
      method: "post",
      path: "/api/widget/tokens",
      tag,
      summary: "Create a widget token ({channel?: id}, default the tenant's widget channel) and the script tag that embeds it",
      body: z.object({ channel: z.string().optional().describe("the widget channel's id") }),
      response: {
        status: 201,
        description: "A new token (not stored: rotating the channel's secret revokes every token)",
        schema: z.object({ token: z.string(), channel_id: z.string(), tenant_id: z.string(), embed_snippet: z.string() }),
      },
      errors: [401, 403, 404, 422, 429],
      async handle(req) {
        const body = (req.body ?? {}) as { channel?: unknown };
        const { createWidgetToken: created } = await runOperation(services, req, CreateWidgetTokenDocument, {
          ref: body.channel as string | undefined,
        });
        return {
          token: created.token,
          channel_id: created.channelId,
          tenant_id: created.tenantId,
          embed_snippet: created.embedSnippet,
        };
      },
    },
    {
      method: "post",
      path: "/api/v1/widget/init",
      tag,
      auth: "self",
      summary: `Start or resume the visitor's chat (X-Widget-Visitor, or none for a new visitor): the widget's look and the latest messages (${widgetAuth})`,
      response: {
        status: 200,
        description: "The visitor, their current conversation and the widget's configuration",
        schema: WidgetInit,
      },
      errors: [401, 403, 429],
      async handle(req, res) {
        const { channel, db } = await authenticateWidget(services, limits, req, res);
        const visitorId = visitorIdOf(req) ?? newVisitorId();
        const conversation = await currentConversation(db, visitorId);
        const tenant = await db.tenant.findUniqueOrThrow({
          where: { id: channel.tenantId },
          select: { name: true, settings: true },
        });
        return {
          visitor_id: visitorId,
          conversation,
          config: { ...widgetConfig(channel.settings), disclosure: disclosureFor(tenant, "widget") },
          messages: conversation ? await recentMessages(db, conversation.id) : [],
        };
      },
    },
    {
      method: "post",
      path: "/api/v1/widget/message",
      tag,
      auth: "self",
      summary: `Send the visitor's message ({message, stream?, choice?}) through the pipeline; the reply as JSON, or as the server-sent events of /api/chat with "stream": true or Accept: text/event-stream (${widgetAuth}, X-Widget-Visitor)`,
      body: messageInput,
      response: { status: 200, description: "The Chat reply (or an event stream)", schema: ChatReply },
      errors: [401, 403, 404, 422, 429, 502],
      async handle(req, res) {
        const { channel } = await authenticateWidget(services, limits, req, res);
        const customer = { id: requireVisitorId(req) };
        const input = parseInput(messageInput, req.body ?? {});
        const inbound: InboundMessage = {
          tenantId: channel.tenantId,
          channel: "widget",
          channelId: channel.id,
          customer,
          text: input.message,
          ...(input.choice && { choice: true }),
        };
        if (!wantsStream(req)) return replyBody(replyOf(await handleInbound(services, inbound), "apart"));
        await sendEventStream(services, res, streamReply(services, inbound, "apart"), chatStreamEvent);
        return undefined;
      },
    },
    {
      method: "get",
      path: "/api/v1/widget/events",
      tag,
      auth: "self",
      summary: `The replies of the visitor's conversation as they are stored (an agent's too), as server-sent "message" events: the latest ones first, then live (${widgetAuth}, X-Widget-Visitor)`,
      query: z.object({ conversation_id: z.string().describe("the visitor's conversation") }),
      response: {
        status: 200,
        description: "An event stream of message events {id, role, content, kind, suggestions, created_at}",
      },
      errors: [401, 403, 404, 422, 429],
      async handle(req, res) {
        const { db } = await authenticateWidget(services, limits, req, res);
        const visitorId = requireVisitorId(req);
        const conversation = await visitorConversation(db, visitorId, String(req.query.conversation_id ?? ""));
        // Listening first, reading second: a reply stored in between is sent twice (the widget keeps one) rather than lost.
        const live = listeningNow(services.realtime.pubsub.subscribe("conversation:message", conversation.id));
        // An open feed must not hold a stopping instance up: it ends, and the widget reconnects to another.
        const stop = () => void live.return?.();
        const shutdown = services.shutdown.signal;
        if (shutdown.aborted) stop();
        else shutdown.addEventListener("abort", stop, { once: true });
        try {
          const earlier = await recentMessages(db, conversation.id, [...repliedRoles], feedSnapshot);
          await sendEventStream(
            services,
            res,
            live,
            async (event) => {
              const { messageId, role } = event as { messageId: string; role: string };
              if (!repliedRoles.has(role)) return null;
              const row = await db.message.findUnique({ where: { id: messageId }, select: visitorMessageFields });
              return row ? { event: "message", data: visitorMessage(row) } : null;
            },
            earlier.map((message) => ({ event: "message", data: message })),
          );
        } finally {
          shutdown.removeEventListener("abort", stop);
          stop();
        }
      },
    },
  ];
}
