import { parentPort } from "node:worker_threads";
import { answerRequests } from "../../src/threads/request-thread.js";

/** A thread for test/threads/request-thread.test.ts: echoes, fails, or dies, as each request asks. */
export type Request =
  | { kind: "echo"; text: string }
  | { kind: "fail"; message: string }
  | { kind: "die" }
  | { kind: "bytes"; size: number };

answerRequests<Request>(parentPort!, async (request) => {
  if (request.kind === "fail") throw new Error(request.message);
  if (request.kind === "die") process.exit(3);
  if (request.kind === "bytes") {
    const bytes = new Float32Array(request.size).fill(1);
    return { result: bytes, transfer: [bytes.buffer] };
  }
  return { result: request.text };
});
