import type { Request, Response } from "express";
import { z } from "zod";
import { AppError } from "../errors.js";
import { toAppError } from "../graphql/errors.js";
import type { Services } from "../services.js";
import { runOperation, runSubscription } from "./execute.js";
import { ChatDocument, type ChatReplyFieldsFragment, ChatStreamDocument } from "./generated.js";
import type { RestRoute } from "./route.js";

const ChatReply = z.object({
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
  }),
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
  };
}

const wantsStream = (req: Request) =>
  (req.body as { stream?: unknown })?.stream === true ||
  req.accepts(["application/json", "text/event-stream"]) === "text/event-stream";

function sse(res: Response, event: string, data: unknown): void {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

const replyBody = (r: ChatReplyFieldsFragment) => ({
  response: r.response,
  conversationId: r.conversationId,
  messageId: r.messageId,
  metadata: r.metadata,
});

/** Server-sent events: meta, delta…, done (or error); a comment every SSE_HEARTBEAT_MS keeps proxies from closing the stream. */
async function stream(services: Services, req: Request, res: Response): Promise<void> {
  const events = await runSubscription(services, req, ChatStreamDocument, variablesOf(req));
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache, no-transform",
    "x-accel-buffering": "no",
  });
  res.flushHeaders();
  const heartbeat = setInterval(() => res.write(": heartbeat\n\n"), services.config.SSE_HEARTBEAT_MS);
  const stop = () => void events.return?.();
  res.on("close", stop);
  try {
    for await (const result of events) {
      if (result.errors?.length) {
        const error = toAppError(result.errors);
        sse(res, "error", { error: error.message, code: error.code });
        break;
      }
      const event = result.data!.chatStream;
      if (event.type === "meta") sse(res, "meta", { conversationId: event.conversationId, messageId: event.messageId });
      else if (event.type === "delta") sse(res, "delta", { text: event.text });
      else if (event.type === "done") sse(res, "done", replyBody(event.reply!));
      else sse(res, "error", event.error);
    }
  } finally {
    clearInterval(heartbeat);
    res.off("close", stop);
    res.end();
  }
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
