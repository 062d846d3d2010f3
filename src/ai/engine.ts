/** A retrieved knowledge chunk as the engines see it: data to answer from, never instructions. */
export interface ContextChunk {
  sourceId: string;
  sourceTitle: string;
  title: string | null;
  url: string | null;
  page: number | null;
  content: string;
  /** Cosine similarity of the chunk to the question. */
  similarity: number;
  /** How surely the tenant's FAQ entry classifier says the question asks this chunk's entry (src/knowledge/search.ts). */
  entry?: number | null;
}

export interface Turn {
  role: "customer" | "assistant" | "agent";
  content: string;
}

/** How a reply must look on a channel (DESIGN §3 "Limits"). */
export interface ChannelStyle {
  channel: string;
  /** The reply's length cap, e.g. chatapp 500. */
  maxTokens: number;
  /** No markdown. */
  plainText: boolean;
  /** Format advice for the model, e.g. "SMS: short, no links formatting". */
  hint: string;
}

export interface AnswerInput {
  tenantName: string;
  persona: string | null;
  style: ChannelStyle;
  message: string;
  history: Turn[];
  context: readonly ContextChunk[];
  /** Mask the customer's PII before it leaves for a model server (the tenant's setting); engines that keep it local ignore it. */
  redact?: boolean;
  /** Aborting stops generation: `answer` rejects with an AbortError after the deltas sent so far. */
  signal?: AbortSignal;
  /**
   * A decline may list the questions the customer may have meant, to pick one from (on unless false). False when a
   * decline hands the conversation to the team: the next message is theirs to answer, not a pick.
   */
  offerChoices?: boolean;
  /**
   * A short message that leans on the customer's question before it ("is it free?"): that question and this one read
   * together, and the knowledge found for them (src/pipeline/follow-up.ts). `first`: to be read so before the message
   * alone (it refers back); else only when the message alone is not answered (it carries on, and may stand alone).
   */
  followUp?: { question: string; context: readonly ContextChunk[]; first: boolean };
}

/** The context an engine that reads the whole conversation is given: a follow-up's knowledge first, then the message's. */
export function contextOf(input: AnswerInput): readonly ContextChunk[] {
  if (!input.followUp) return input.context;
  const all = [...input.followUp.context, ...input.context];
  return all.filter((c, i) => all.findIndex((o) => o.sourceId === c.sourceId && o.content === c.content) === i);
}

export interface AnswerSource {
  sourceId: string;
  title: string;
  url: string | null;
  page: number | null;
  similarity: number;
}

export interface Answer {
  text: string;
  tokensUsed: number;
  /** Answered from the context (false: "I don't know", offered a human). */
  grounded: boolean;
  sources: AnswerSource[];
  /** With no answer: the tenant's FAQ questions the customer may have meant, offered in the reply, best first. */
  suggestions?: string[];
}

export interface Engine {
  readonly name: string;
  /**
   * `onDelta` receives the reply in order as it is produced; the deltas concatenate to `Answer.text`.
   * When `input.signal` aborts, the promise rejects with an error named "AbortError" and the deltas
   * delivered before it are the partial reply.
   */
  answer(input: AnswerInput, onDelta?: (text: string) => void): Promise<Answer>;
  /** The intent of a message among the tenant's intent names, when the engine classifies better than the local classifier. */
  classify?(text: string, intents: string[], signal?: AbortSignal): Promise<{ intent: string; confidence: number }>;
}

/** The model server failed after retries: the caller maps it to 502 EXTERNAL. The message never carries credentials. */
export class EngineError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "EngineError";
  }
}

/** The rejection of an aborted `answer`, the same name as the platform's DOMException so callers can test `err.name`. */
export function abortError(): Error {
  return new DOMException("The answer was aborted", "AbortError");
}

/** What a source looks like in an answer's metadata. */
export function sourceOf(chunk: ContextChunk): AnswerSource {
  return { sourceId: chunk.sourceId, title: chunk.sourceTitle, url: chunk.url, page: chunk.page, similarity: chunk.similarity };
}
