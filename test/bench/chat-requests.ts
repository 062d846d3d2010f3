import { fileURLToPath } from "node:url";
import type autocannon from "autocannon";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { defaultIntentClassifier, defaultIntents } from "../../src/ai/intents/defaults.js";
import { SetDisclosureDocument } from "../generated.js";
import { type BenchDatabase, corpus, embeddingOf, loadChunks, startBenchApp } from "./harness.js";
import { readBanking77, shuffled } from "./intents.js";

// Questions the knowledge base answers and the router leaves to the AI (no urgent intent, no human asked for).
export const questions = [
  "How do I open a savings account in the mobile app?",
  "What is the fee to replace a debit card?",
  "What interest rate does the cash ISA pay?",
  "How can I change the PIN of my credit card?",
  "Can the Leeds branch help me apply for a mortgage?",
  "How do I set up a direct debit from my current account?",
];

const chatRequest = (apiKey: string, message: string) => ({
  method: "POST" as const,
  path: "/api/chat",
  headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
  body: JSON.stringify({ message }),
});

/** autocannon's POST /api/chat requests, one per question, which each client cycles through. */
export const chatRequests = (apiKey: string): autocannon.Request[] => questions.map((message) => chatRequest(apiKey, message));

/**
 * Customers' questions as they come, each a text of its own: BANKING77's queries that the built-in intents leave to
 * the AI (a confident urgent or hand-off intent is escalated instead). Where the six questions above repeat, every
 * cache keyed by a question's text (its sentence encoding, its intent) answers them after their first time.
 */
export function customersQuestions(): string[] {
  const classifier = defaultIntentClassifier();
  const escalating = new Set(defaultIntents.filter((i) => i.urgent || i.agentType === "handoff").map((i) => i.name));
  // The file is ordered by intent: customers' questions come in no such order.
  const texts = shuffled([...new Set(readBanking77().map((row) => row.text.trim()))], 1);
  return texts.filter((text) => {
    const intent = classifier.classify(text);
    return !(escalating.has(intent.intent) && intent.confidence >= 0.5);
  });
}

/**
 * autocannon's request for `questions`, written to a file for its worker thread (test/bench/distinct-question.cjs):
 * its clients share one sequence, so no question is asked twice while there are questions left.
 */
export function distinctChatRequests(apiKey: string, questionsFile: string): autocannon.Request[] {
  process.env.BENCH_CHAT_QUESTIONS = questionsFile;
  return [{ ...chatRequest(apiKey, ""), setupRequest: fileURLToPath(new URL("./distinct-question.cjs", import.meta.url)) }];
}

/**
 * Milliseconds from sending a request to the first server-sent event that `isFirst` accepts, which `seenAt` is told
 * the moment of (performance.now()); the stream is read to its end.
 */
export async function timeToFirst(
  send: () => Promise<Response>,
  isFirst: (event: EventSourceMessage) => boolean,
  seenAt?: (at: number) => void,
): Promise<number> {
  const started = performance.now();
  const res = await send();
  if (!res.ok || !res.body) throw new Error(`the stream failed: HTTP ${res.status} ${await res.text()}`);
  let first: number | null = null;
  const parser = createParser({
    onEvent: (event) => {
      if (first !== null || !isFirst(event)) return;
      const at = performance.now();
      first = at - started;
      seenAt?.(at);
    },
  });
  const decoder = new TextDecoder();
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>)
    parser.feed(decoder.decode(chunk, { stream: true }));
  if (first === null) throw new Error("the stream ended without the event awaited");
  return first;
}

/** Each question's time to its first awaited event, one question at a time, sorted (not the whole stream's time). */
export async function timesToFirst(items: string[], ask: (question: string) => Promise<number>): Promise<number[]> {
  const times: number[] = [];
  for (const item of items) times.push(await ask(item));
  return times.sort((a, b) => a - b);
}

/** A streamed /api/chat request to the service at `url`: milliseconds to its first `delta`. */
export const streamedChat = (url: string, apiKey: string, message: string, seenAt?: (at: number) => void) =>
  timeToFirst(
    () =>
      fetch(`${url}/api/chat`, {
        method: "POST",
        headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ message, stream: true }),
      }),
    (event) => event.event === "delta",
    seenAt,
  );

/** A service on `database` with `chunks` chunks of help text in one tenant's knowledge base, its index loaded. */
export async function serviceWithKnowledge(database: BenchDatabase, chunks: number, env: Record<string, string>) {
  const app = await startBenchApp(database, env);
  const tenant = await app.tenant("Bench Bank");
  // Each request starts a conversation, whose stream would begin with the AI disclosure, sent before the answer is
  // sought: the first delta timed must be the answer's own.
  await app.graphql(SetDisclosureDocument, { aiDisclosureEnabled: false }, tenant.apiKey);
  await loadChunks(app.services, tenant.tenantId, corpus(chunks));
  // The embedded database's statistics, as an instance that has run for a while has them (src/db/upkeep.ts).
  await app.services.upkeep?.pass();
  // The memory index loads a tenant at its first search: not part of any request measured.
  await app.services.vectors.search(tenant.tenantId, embeddingOf(corpus(chunks), 0), 1);
  // As does its term index (src/knowledge/term-index.ts), built in the background after a first search.
  app.services.termIndex.terms(tenant.tenantId);
  await app.services.termIndex.settled();
  return { app, ...tenant };
}
