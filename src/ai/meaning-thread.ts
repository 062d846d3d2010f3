import { parentPort } from "node:worker_threads";
import { answerRequests } from "../threads/request-thread.js";
import { encodeHere, encoderLoadError } from "./sentence-encoder.js";

/** What the sentence-encoder thread answers: the vectors, or why there are none. */
export interface Encoded {
  vectors: Float32Array[] | null;
  unavailable?: string;
}

answerRequests<{ texts: string[] }>(parentPort!, async ({ texts }) => {
  const vectors = await encodeHere(texts);
  const result: Encoded = vectors ? { vectors } : { vectors, unavailable: String(encoderLoadError()) };
  return { result, transfer: vectors?.map((v) => v.buffer as ArrayBuffer) ?? [] };
});
