// The widget endpoints (src/rest/widget.ts), as the browser calls them: every request carries the widget
// token, and the visitor id once the service has given one.

export interface WidgetConfig {
  title: string;
  greeting: string | null;
  position: string;
  streaming: boolean;
  colors: { primary: string; background: string; text: string };
  /** The AI disclosure: shown before the visitor's first message, as the conversation stores it. */
  disclosure: string | null;
}

export interface ChatMessage {
  id: string;
  /** `system`: the service's notices (the AI disclosure, the satisfaction question), shown as the assistant's. */
  role: "customer" | "assistant" | "agent" | "system";
  content: string;
  /** `disclosure`, `survey`, or null for an ordinary message. */
  kind?: string | null;
  /** The FAQ questions an assistant's decline lists: the visitor may pick one. */
  suggestions?: string[];
}

export interface InitResult {
  visitor_id: string;
  conversation: { id: string; status: string } | null;
  config: WidgetConfig;
  messages: ChatMessage[];
}

export interface Reply {
  response: string;
  conversationId: string;
  messageId: string | null;
  metadata?: { suggestions?: string[] };
}

/** Why a request failed, as the visitor is told: each kind has its own message and its own retry. */
export type Failure = "offline" | "unreachable" | "auth" | "origin" | "rate" | "failed";

export class WidgetError extends Error {
  constructor(
    readonly kind: Failure,
    message: string,
    readonly retryAfterS = 0,
  ) {
    super(message);
  }
}

export interface StreamHandlers {
  meta(ids: { conversationId: string; messageId: string }): void;
  delta(text: string): void;
}

async function failureOf(res: Response): Promise<WidgetError> {
  const body = (await res.json().catch(() => ({}))) as { error?: string };
  const message = body.error ?? `HTTP ${res.status}`;
  if (res.status === 401) return new WidgetError("auth", message);
  if (res.status === 403) return new WidgetError("origin", message);
  if (res.status === 429) {
    const seconds = Number(res.headers.get("retry-after")) || Number(message.match(/(\d+) seconds/)?.[1]) || 30;
    return new WidgetError("rate", message, seconds);
  }
  return new WidgetError(res.status >= 500 ? "unreachable" : "failed", message);
}

/** Reads server-sent events from a fetch response until it ends; comments (heartbeats) are skipped. */
async function readEvents(res: Response, onEvent: (event: string, data: unknown) => void): Promise<void> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = "message";
      const data: string[] = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).trimStart());
      }
      if (data.length) onEvent(event, JSON.parse(data.join("\n")));
    }
  }
}

export class WidgetApi {
  visitorId: string | null;

  constructor(
    private readonly base: string,
    private readonly token: string,
    visitorId: string | null,
  ) {
    this.visitorId = visitorId;
  }

  private async request(path: string, init: RequestInit & { accept?: string } = {}): Promise<Response> {
    const headers: Record<string, string> = { "x-widget-token": this.token, accept: init.accept ?? "application/json" };
    if (this.visitorId) headers["x-widget-visitor"] = this.visitorId;
    if (init.body) headers["content-type"] = "application/json";
    let res: Response;
    try {
      res = await fetch(`${this.base}${path}`, { ...init, headers, credentials: "omit" });
    } catch (err) {
      if ((err as Error).name === "AbortError") throw err;
      if (navigator.onLine === false) throw new WidgetError("offline", "offline");
      throw (await this.reachable())
        ? new WidgetError("origin", "refused by CORS")
        : new WidgetError("unreachable", (err as Error).message);
    }
    if (!res.ok) throw await failureOf(res);
    return res;
  }

  /**
   * Whether the service answers at all. The service refuses a page outside the allow-list without CORS headers, so
   * the browser shows the widget only a failed request; a request that needs no CORS tells that apart from an outage.
   */
  private async reachable(): Promise<boolean> {
    try {
      await fetch(`${this.base}/healthz`, { mode: "no-cors", cache: "no-store", credentials: "omit" });
      return true;
    } catch {
      return false;
    }
  }

  async init(): Promise<InitResult> {
    const result = (await (await this.request("/api/v1/widget/init", { method: "POST", body: "{}" })).json()) as InitResult;
    this.visitorId = result.visitor_id;
    return result;
  }

  /**
   * Sends a message (`choice`: a question of a decline's list, pressed); with `stream`, the reply arrives through `on`
   * as it is written, and the promise holds the whole.
   */
  async send(message: string, stream: boolean, choice: boolean, on: StreamHandlers): Promise<Reply> {
    const res = await this.request("/api/v1/widget/message", {
      method: "POST",
      body: JSON.stringify({ message, stream, ...(choice && { choice }) }),
      accept: stream ? "text/event-stream" : "application/json",
    });
    if (!stream) return (await res.json()) as Reply;
    let reply: Reply | null = null;
    let failure: WidgetError | null = null;
    await readEvents(res, (event, data) => {
      if (event === "meta") on.meta(data as { conversationId: string; messageId: string });
      else if (event === "delta") on.delta((data as { text: string }).text);
      else if (event === "done") reply = data as Reply;
      else if (event === "error") failure = new WidgetError("failed", (data as { error: string }).error);
    });
    if (failure) throw failure;
    if (!reply) throw new WidgetError("unreachable", "The reply was cut off");
    return reply;
  }

  /** The visitor's thumbs up or down on an AI reply (given again, it replaces the first). */
  async rate(messageId: string, rating: "up" | "down"): Promise<void> {
    await this.request("/api/v1/widget/feedback", { method: "POST", body: JSON.stringify({ message_id: messageId, rating }) });
  }

  /** The visitor's answer (1 to 5) to the satisfaction question of their resolved conversation. */
  async score(score: number): Promise<void> {
    await this.request("/api/v1/widget/satisfaction", { method: "POST", body: JSON.stringify({ score }) });
  }

  /** The conversation's replies (an agent's too) as they are stored; resolves when the service ends the stream. */
  async follow(conversationId: string, onMessage: (message: ChatMessage) => void, signal: AbortSignal): Promise<void> {
    const res = await this.request(`/api/v1/widget/events?conversation_id=${encodeURIComponent(conversationId)}`, {
      accept: "text/event-stream",
      signal,
    });
    await readEvents(res, (event, data) => {
      if (event === "message") onMessage(data as ChatMessage);
    });
  }
}
