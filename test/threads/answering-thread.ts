import { parentPort } from "node:worker_threads";
import { answerRequests } from "../../src/threads/request-thread.js";
import { threadData } from "../../src/threads/typescript-thread.js";

/** A thread for test/threads/request-thread.test.ts: echoes, fails, dies, or waits to be released, as each request asks. */
export type Request =
  | { kind: "echo"; text: string }
  | { kind: "fail"; message: string; code?: string }
  | { kind: "die" }
  | { kind: "bytes"; size: number }
  | { kind: "data" }
  | { kind: "hold"; key: string }
  | { kind: "release"; key: string };

/** What the test starts the thread with: whether it answers requests at once, and a value it hands back. */
export interface AnsweringData {
  concurrent?: boolean;
  value?: unknown;
}

const data = threadData<AnsweringData | undefined>();
const held = new Map<string, () => void>();

answerRequests<Request>(
  parentPort!,
  async (request) => {
    switch (request.kind) {
      case "fail":
        throw Object.assign(new Error(request.message), { code: request.code, onlyHere: () => undefined });
      case "die":
        return process.exit(3);
      case "bytes": {
        const bytes = new Float32Array(request.size).fill(1);
        return { result: bytes, transfer: [bytes.buffer] };
      }
      case "data":
        return { result: data?.value };
      case "hold":
        await new Promise<void>((resolve) => held.set(request.key, resolve));
        return { result: `released ${request.key}` };
      case "release":
        held.get(request.key)?.();
        return { result: null };
      case "echo":
        return { result: request.text };
    }
  },
  { concurrent: data?.concurrent },
);
