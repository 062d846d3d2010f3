import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * Chat completions as an OpenAI-compatible server speaks them on the wire, for the real `openai` SDK:
 * JSON replies, and with `stream: true` server-sent events of `chat.completion.chunk` objects, a final chunk
 * with empty `choices` and the `usage` when `stream_options.include_usage` is set, then `data: [DONE]`.
 * Mounted by `startFakeOpenAI` in ./openai-server.ts, whose `sendError` writes the error bodies.
 */

export interface ChatReply {
  /** The assistant's content; `json` is sent as its JSON text (what a structured-output call returns). */
  text?: string;
  json?: unknown;
  /** Streamed replies are cut into this many deltas (at most one per character). */
  deltas?: number;
  /** Wait before each delta, in milliseconds. */
  delayMs?: number;
  /**
   * The reply (streamed: its first delta) waits for this: a model slow for as long as the test needs, whatever the
   * machine's load.
   */
  holdUntil?: Promise<void>;
  /** null: a server that ignores `stream_options.include_usage` and sends no usage. */
  usage?: { prompt_tokens: number; completion_tokens: number } | null;
  finishReason?: "stop" | "length" | "content_filter";
}

export type ChatFailure =
  /** An error status with the service's error body; 429s may say when to come back. */
  | { fail: "status"; status: number; message?: string; retryAfterS?: number; retryAfterMs?: number }
  /** Accepts the request and never answers. */
  | { fail: "hang" }
  /** Streams `afterDeltas` deltas, then drops the connection. */
  | { fail: "drop"; afterDeltas: number; text?: string; delayMs?: number };

export type ChatStep = ChatReply | ChatFailure;

/** What the chat handler reads from, and notes on, the server's record of a request. */
export interface RecordedChatRequest {
  headers: IncomingMessage["headers"];
  body: any;
  /** Deltas written before the stream ended or the client went away. */
  deltasSent: number;
  /** The client closed the connection before the reply was complete. */
  clientClosed: boolean;
  /** When (performance.now()) the first delta with content was written, for a streamed reply. */
  firstDeltaAt?: number;
}

export interface ChatScript {
  /** Consumed one per request, in order; then `fallback`. Push to it at any time. */
  steps: ChatStep[];
  fallback?: ChatStep;
}

export type SendError = (res: ServerResponse, status: number, message?: string, headers?: Record<string, string>) => void;

const created = 1_700_000_000;

/** Rough token counts, as a real server's usage would be: about four characters a token. */
function estimateUsage(body: any, completion: string): { prompt_tokens: number; completion_tokens: number } {
  const prompt = (body.messages ?? [])
    .map((m: any) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)))
    .join("");
  return {
    prompt_tokens: Math.ceil(prompt.length / 4) + 3 * (body.messages?.length ?? 0),
    completion_tokens: Math.ceil(completion.length / 4),
  };
}

function split(text: string, parts: number): string[] {
  const n = Math.max(1, Math.min(parts, text.length));
  const size = Math.ceil(text.length / n);
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces.length ? pieces : [""];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function completion(id: string, model: string, text: string, reply: ChatReply, usage: ReturnType<typeof estimateUsage>) {
  return {
    id,
    object: "chat.completion",
    created,
    model,
    system_fingerprint: "fp_fake",
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: text, refusal: null },
        logprobs: null,
        finish_reason: reply.finishReason ?? "stop",
      },
    ],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  };
}

async function stream(
  res: ServerResponse,
  record: RecordedChatRequest,
  id: string,
  text: string,
  reply: ChatReply,
  drop?: number,
) {
  const body = record.body;
  const withUsage = body.stream_options?.include_usage === true;
  const chunk = (choices: unknown[], usage?: unknown) => {
    const payload = { id, object: "chat.completion.chunk", created, model: body.model, system_fingerprint: "fp_fake", choices };
    res.write(`data: ${JSON.stringify(withUsage ? { ...payload, usage: usage ?? null } : payload)}\n\n`);
  };
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  chunk([{ index: 0, delta: { role: "assistant", content: "", refusal: null }, logprobs: null, finish_reason: null }]);
  await reply.holdUntil;
  for (const piece of split(text, reply.deltas ?? 5)) {
    if (drop !== undefined && record.deltasSent >= drop) {
      // Flushed first, so the client gets every delta written before the connection goes.
      await new Promise((resolve) => res.write("", resolve));
      res.socket?.destroy();
      return;
    }
    if (reply.delayMs) await sleep(reply.delayMs);
    if (record.clientClosed) return;
    chunk([{ index: 0, delta: { content: piece }, logprobs: null, finish_reason: null }]);
    record.firstDeltaAt ??= performance.now();
    record.deltasSent++;
  }
  chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: reply.finishReason ?? "stop" }]);
  const usage = reply.usage === undefined ? estimateUsage(body, text) : reply.usage;
  if (withUsage && usage) chunk([], { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens });
  res.end("data: [DONE]\n\n");
}

/** POST /v1/chat/completions: the next scripted step (or the fallback) answers each request. */
export function handleChatCompletions(
  script: ChatScript,
  sendError: SendError,
): (record: RecordedChatRequest, res: ServerResponse) => void {
  let counter = 0;
  return (record, res) => {
    const { body } = record;
    const step = script.steps.shift() ?? script.fallback ?? { text: "Hello from the fake model." };
    const id = `chatcmpl-fake${++counter}`;
    if ("fail" in step) {
      if (step.fail === "status") {
        const headers: Record<string, string> = {};
        if (step.retryAfterS !== undefined) headers["retry-after"] = String(step.retryAfterS);
        if (step.retryAfterMs !== undefined) headers["retry-after-ms"] = String(step.retryAfterMs);
        sendError(res, step.status, step.message, headers);
      } else if (step.fail === "drop")
        void stream(
          res,
          record,
          id,
          step.text ?? "This reply is cut short by a dropped connection.",
          { delayMs: step.delayMs, deltas: 10 },
          step.afterDeltas,
        );
      return;
    }
    const text = step.json !== undefined ? JSON.stringify(step.json) : (step.text ?? "");
    if (body?.stream === true) void stream(res, record, id, text, step);
    else {
      const reply = completion(id, body?.model, text, step, step.usage ?? estimateUsage(body ?? {}, text));
      void Promise.resolve(step.holdUntil).then(() =>
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(reply)),
      );
    }
  };
}
