import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type ChatScript, type ChatStep, handleChatCompletions, type RecordedChatRequest } from "./openai-chat.js";

/**
 * An OpenAI-compatible model server on 127.0.0.1 speaking the documented wire format, for the
 * `openai` SDK pointed at it with OPENAI_BASE_URL: embeddings, and chat completions (./openai-chat.ts)
 * answered from a script. Other endpoints, or other behaviour of these, are added with `route`. Every
 * request is recorded, and `failNext` makes the next requests to any endpoint fail as the real service
 * does (429 with retry headers, 5xx).
 */
export interface FakeOpenAI {
  /** The base URL, ending in /v1, as OPENAI_BASE_URL. */
  url: string;
  apiKey: string;
  /** Every request to every endpoint, in arrival order. */
  requests: RecordedRequest[];
  failNext(...failures: Failure[]): void;
  /** Queues the next chat completions' replies or failures. */
  script(...steps: ChatStep[]): void;
  /** What every chat completion gets once the script is used up. */
  setFallback(step: ChatStep): void;
  route(method: string, path: string, handler: Handler): void;
  close(): Promise<void>;
}

export interface RecordedRequest extends RecordedChatRequest {
  method: string;
  path: string;
}

export interface Failure {
  status: number;
  headers?: Record<string, string>;
  message?: string;
}

export type Handler = (request: RecordedRequest, res: ServerResponse) => void | Promise<void>;

// The service's documented limits per embeddings request.
const maxInputs = 2048;
const maxTokens = 300_000;

/** A deterministic unit vector per text: the same text always gets the same embedding. */
export function fakeEmbedding(text: string, dimensions: number): Float32Array {
  const vector = new Float32Array(dimensions);
  let block = createHash("sha256").update(text).digest();
  for (let i = 0; i < dimensions; i++) {
    if (i % 32 === 0 && i > 0) block = createHash("sha256").update(block).digest();
    vector[i] = block[i % 32]! / 255 - 0.5;
  }
  let norm = 0;
  for (const v of vector) norm += v * v;
  return vector.map((v) => v / Math.sqrt(norm));
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
}

/** The service's error body, with its default messages. */
export function sendError(res: ServerResponse, status: number, message?: string, headers: Record<string, string> = {}): void {
  const [type, code] =
    status === 429
      ? ["requests", "rate_limit_exceeded"]
      : status >= 500
        ? ["server_error", null]
        : ["invalid_request_error", null];
  const text =
    message ?? (status === 429 ? "Rate limit reached for requests" : "The server had an error while processing your request.");
  sendJson(res, status, { error: { message: text, type, param: null, code } }, headers);
}

const embeddings: Handler = (request, res) => {
  const { model, input, dimensions, encoding_format: encoding } = request.body ?? {};
  const inputs: unknown[] = typeof input === "string" ? [input] : Array.isArray(input) ? input : [];
  if (typeof model !== "string" || !inputs.length || inputs.some((i) => typeof i !== "string" || i === "")) {
    sendError(res, 400, "'input' must be a non-empty string or array of non-empty strings, and 'model' a string");
    return;
  }
  const tokens = (inputs as string[]).reduce((n, text) => n + Math.ceil(text.length / 4), 0);
  if (inputs.length > maxInputs) {
    sendError(res, 400, `'input' must have at most ${maxInputs} items`);
    return;
  }
  if (tokens > maxTokens) {
    sendError(res, 400, `Requested ${tokens} tokens, max ${maxTokens} tokens per request`);
    return;
  }
  const size = typeof dimensions === "number" ? dimensions : 1536;
  const data = (inputs as string[]).map((text, index) => {
    const vector = fakeEmbedding(text, size);
    const embedding = encoding === "base64" ? Buffer.from(vector.buffer).toString("base64") : Array.from(vector);
    return { object: "embedding", index, embedding };
  });
  sendJson(res, 200, { object: "list", data, model, usage: { prompt_tokens: tokens, total_tokens: tokens } });
};

async function readBody(req: IncomingMessage): Promise<any> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? JSON.parse(text) : undefined;
}

export async function startFakeOpenAI(apiKey = "sk-fake-test-key"): Promise<FakeOpenAI> {
  const chat: ChatScript = { steps: [] };
  const routes = new Map<string, Handler>([
    ["POST /v1/embeddings", embeddings],
    ["POST /v1/chat/completions", handleChatCompletions(chat, sendError)],
  ]);
  const failures: Failure[] = [];
  const requests: RecordedRequest[] = [];
  const server = createServer(async (req, res) => {
    try {
      const path = new URL(req.url ?? "/", "http://localhost").pathname;
      const request: RecordedRequest = {
        method: req.method ?? "GET",
        path,
        headers: req.headers,
        body: await readBody(req),
        deltasSent: 0,
        clientClosed: false,
      };
      requests.push(request);
      res.on("close", () => {
        request.clientClosed = !res.writableFinished;
      });
      const token = req.headers.authorization?.replace(/^Bearer /, "");
      if (token !== apiKey) {
        // Quoting the key, as the real service partly does: clients must keep it out of their own errors.
        sendError(res, 401, `Incorrect API key provided: ${token}.`);
        return;
      }
      const failure = failures.shift();
      if (failure) {
        sendError(res, failure.status, failure.message, failure.headers);
        return;
      }
      const handler = routes.get(`${request.method} ${path}`);
      if (!handler) {
        sendError(res, 404, `Unknown endpoint ${request.method} ${path}`);
        return;
      }
      await handler(request, res);
    } catch (err) {
      sendError(res, 400, `Could not parse the request: ${(err as Error).message}`);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    apiKey,
    requests,
    failNext: (...more) => failures.push(...more),
    script: (...steps) => chat.steps.push(...steps),
    setFallback: (step) => {
      chat.fallback = step;
    },
    route: (method, path, handler) => routes.set(`${method} ${path}`, handler),
    close: () =>
      new Promise<void>((resolve) => {
        // Hanging and streaming requests would keep close() waiting for ever.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
