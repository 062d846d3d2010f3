import { withDisclosure } from "../conversations/disclosure.js";
import { publicError } from "../errors.js";
import type { Services } from "../services.js";
import type { InboundMessage } from "./inbound.js";
import { handleInbound, type PipelineResult, type ReplyMetadata } from "./index.js";

/**
 * Turns callback-style progress into an async iterator: the pipeline pushes, a subscription pulls.
 * Closing the iterator (a client that went away) aborts the work through `signal`.
 */
export class EventChannel<T> implements AsyncIterableIterator<T> {
  private readonly queue: T[] = [];
  private waiting: ((result: IteratorResult<T>) => void) | null = null;
  private finished = false;
  private failure: unknown = null;
  readonly abort = new AbortController();

  push(value: T): void {
    if (this.finished) return;
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = null;
      resolve({ value, done: false });
    } else this.queue.push(value);
  }

  end(error?: unknown): void {
    if (this.finished) return;
    this.finished = true;
    this.failure = error ?? null;
    if (this.waiting && !this.queue.length) {
      const resolve = this.waiting;
      this.waiting = null;
      resolve({ value: undefined, done: true });
    }
  }

  async next(): Promise<IteratorResult<T>> {
    const value = this.queue.shift();
    if (value !== undefined) return { value, done: false };
    if (this.finished) {
      if (this.failure) {
        const error = this.failure;
        this.failure = null;
        throw error;
      }
      return { value: undefined, done: true };
    }
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  async return(): Promise<IteratorResult<T>> {
    this.abort.abort();
    this.end();
    return { value: undefined, done: true };
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }
}

/** Who answers a customer's message: the AI, or the bank's team (the conversation waits for or is with a person). */
export type ChatHandler = "ai" | "team";

/** The spec's Chat reply, and who handles the message. */
export interface ChatReplyShape {
  response: string;
  conversationId: string;
  /** Null when nothing was said back: the team has the message, and the customer was told so earlier in this wait. */
  messageId: string | null;
  metadata: Required<ReplyMetadata>;
  handledBy: ChatHandler;
}

/** One step of a streamed reply: meta (ids), delta (text as generated), done (the full reply), error. */
export interface ChatEventShape {
  type: "meta" | "delta" | "done" | "error";
  conversationId?: string;
  messageId?: string;
  text?: string;
  reply?: ChatReplyShape;
  error?: { error: string; code: string };
}

/**
 * How a surface tells the AI disclosure: `inline` at the head of the first reply (API callers show the reply
 * only), or `apart` (the widget shows the stored disclosure message on its own).
 */
export type DisclosureDelivery = "inline" | "apart";

export function replyOf(result: PipelineResult, disclosure: DisclosureDelivery): ChatReplyShape {
  const text = result.reply?.text ?? "";
  return {
    response: disclosure === "inline" && result.reply ? withDisclosure(result.disclosure ?? null, text) : text,
    conversationId: result.conversationId,
    messageId: result.reply?.id ?? null,
    metadata: {
      suggestions: [],
      ...(result.reply?.metadata ?? { intent: "none", confidence: 0, agentType: "human", tokensUsed: 0, sources: [] }),
    },
    handledBy: result.handledBy === "human" || result.handledBy === "escalated" ? "team" : "ai",
  };
}

const shuttingDown = { error: "The service is restarting: please send your message again", code: "INTERNAL" };

/**
 * A customer message through the pipeline as a stream of events, for every streaming surface (the GraphQL
 * subscription, the widget). Closing the stream (a client that went away) aborts the answer.
 */
export function streamReply(
  services: Services,
  inbound: InboundMessage,
  disclosure: DisclosureDelivery,
): EventChannel<ChatEventShape> {
  const events = new EventChannel<ChatEventShape>();
  // A stopping instance cuts its answers short rather than have a slow model hold the shutdown up: what was
  // said is kept (marked partial) and the customer is asked to send the message again.
  const shutdown = services.shutdown.signal;
  const stop = () => events.abort.abort();
  if (shutdown.aborted) stop();
  else shutdown.addEventListener("abort", stop, { once: true });
  let untold: string | null = null;
  handleInbound(services, inbound, {
    signal: events.abort.signal,
    onDisclosure: (text) => {
      if (disclosure === "inline") untold = text;
    },
    onStart: (ids) => {
      events.push({ type: "meta", ...ids });
      if (untold) events.push({ type: "delta", text: withDisclosure(untold, "") });
      untold = null;
    },
    onDelta: (text) => events.push({ type: "delta", text }),
  })
    .then(
      (result) => events.push({ type: "done", reply: replyOf(result, disclosure) }),
      (err) => events.push({ type: "error", error: shutdown.aborted ? shuttingDown : publicError(err) }),
    )
    .finally(() => {
      shutdown.removeEventListener("abort", stop);
      events.end();
    });
  return events;
}
