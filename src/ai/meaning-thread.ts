import { parentPort } from "node:worker_threads";
import { answerRequests } from "../threads/request-thread.js";
import { encodeInThread } from "./sentence-encoder.js";

// The sentence-encoder thread: src/ai/semantic.ts asks it for the serving thread's encodings.
// Each request is taken as it comes: those that arrive while the model runs are encoded together in its next call.
answerRequests<{ texts: string[] }>(
  parentPort!,
  async ({ texts }) => {
    const result = await encodeInThread(texts);
    return { result, transfer: result.vectors?.map((v) => v.buffer as ArrayBuffer) ?? [] };
  },
  { concurrent: true },
);
