import type { Request, Response } from "express";
import { z } from "zod";
import { AppError } from "../errors.js";
import { toAppError } from "../graphql/errors.js";
import type { Services } from "../services.js";
import { runOperation, runSubscription } from "./execute.js";
import { ChatDocument, type ChatReplyFieldsFragment, ChatStreamDocument } from "./generated.js";
import type { RestRoute } from "./route.js";
import { type ServerSentEvent, sendEventStream } from "./sse.js";

export const ChatReply = z.object({
  response: z.string(),
  conversationId: z.string(),
  messageId: z.string().nullable(),
  metadata: z.object({
    intent: z.string(),
    confidence: z.number(),
    agentType: z.string(),
    tokensUsed: z.number().int(),
    sources: z.array(
      z.object({
        sourceId: z.string(),
        title: z.string(),
        url: z.string().nullable(),
        page: z.number().int().nullable(),
        similarity: z.number(),
      }),
    ),
    suggestions: z.array(z.string()).describe("the FAQ questions a decline lists, numbered in the response; else empty"),
  }),
  // Beyond the spec's fields: who answers the message, the AI or the bank's team.
  handledBy: z.enum(["ai", "team"]),
});

function variablesOf(req: Request) {
  const body = req.body as Record<string, unknown> | undefined;
  if (!body || typeof body !== "object" || Array.isArray(body)) {
    throw new AppError("VALIDATION", "Request body must be a JSON object with a message", [
      { path: "message", message: "required" },
    ]);
  }
  if (typeof body.message !== "string")
    throw new AppError("VALIDATION", "message is required", [{ path: "message", message: "required" }]);
  return {
    message: body.message,
    conversationId: typeof body.conversationId === "string" ? body.conversationId : undefined,
    channel: typeof body.channel === "string" ? body.channel : undefined,
    // Anything but a boolean is refused by the operation's variable type, as a VALIDATION error.
    choice: body.choice as boolean | undefined,
  };
}

export const wantsStream = (req: Request) =>
  (req.body as { stream?: unknown })?.stream === true ||
  req.accepts(["application/json", "text/event-stream"]) === "text/event-stream";

export const replyBody = (r: ChatReplyFieldsFragment) => ({
  response: r.response,
  conversationId: r.conversationId,
  messageId: r.messageId,
  metadata: r.metadata,
  handledBy: r.handledBy,
});

/** A step of a streamed reply, from the GraphQL subscription or straight from the pipeline. */
export interface ChatStreamStep {
  type: string;
  conversationId?: string | null;
  messageId?: string | null;
  text?: string | null;
  reply?: ChatReplyFieldsFragment | null;
  error?: { error: string; code: string } | null;
}

/** The SSE events of /api/chat (DESIGN §3 "Streaming"): meta, delta…, done, or error. */
export function chatStreamEvent(step: ChatStreamStep): ServerSentEvent {
  if (step.type === "meta") return { event: "meta", data: { conversationId: step.conversationId, messageId: step.messageId } };
  if (step.type === "delta") return { event: "delta", data: { text: step.text } };
  if (step.type === "done") return { event: "done", data: replyBody(step.reply!) };
  return { event: "error", data: step.error };
}

async function stream(services: Services, req: Request, res: Response): Promise<void> {
  const events = await runSubscription(services, req, ChatStreamDocument, variablesOf(req));
  await sendEventStream(services, res, events, (result) => {
    if (!result.errors?.length) return chatStreamEvent(result.data!.chatStream);
    const error = toAppError(result.errors);
    return { event: "error", data: { error: error.message, code: error.code } };
  });
}

export function chatRoutes(services: Services): RestRoute[] {
  return [
    {
      method: "post",
      path: "/api/chat",
      tag: "Chat",
      summary:
        'Send a customer message; the reply comes as JSON, or as server-sent events (meta, delta, done, error) with "stream": true or Accept: text/event-stream',
      body: z.object({
        message: z.string().max(4000),
        conversationId: z.string().optional(),
        channel: z.enum(["api", "widget"]).optional(),
        choice: z
          .boolean()
          .optional()
          .describe("true when message is one of the questions a decline listed (metadata.suggestions), chosen from buttons"),
        stream: z.boolean().optional(),
      }),
      response: { status: 200, description: "The Chat reply (or an event stream)", schema: ChatReply },
      errors: [401, 403, 404, 422, 429, 502],
      async handle(req, res) {
        if (wantsStream(req)) {
          await stream(services, req, res);
          return undefined;
        }
        const { chat } = await runOperation(services, req, ChatDocument, variablesOf(req));
        return replyBody(chat);
      },
    },
  ];
}
