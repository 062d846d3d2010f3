import type { MessagePort, Transferable, Worker } from "node:worker_threads";
import { typeScriptThread } from "./typescript-thread.js";

/** What a request thread posts back: the answer to request `id`, or why there is none. */
type ThreadReply<T> = { id: number; result: T } | { id: number; error: string };

interface Pending {
  resolve(result: unknown): void;
  reject(error: Error): void;
}

/**
 * Asks a worker thread running `entry` (a TypeScript module answering `{ id, ...request }` with a `ThreadReply`) and
 * waits for its answers. The thread starts on the first request, stays for the next ones, and is started again if it
 * dies; it holds the process open only while a request waits for it.
 */
export class RequestThread<Request extends object> {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  constructor(
    private readonly entry: URL,
    private readonly name: string,
  ) {}

  /** Requests asked for and not answered yet. */
  get busy(): number {
    return this.pending.size;
  }

  ask<T>(request: Request): Promise<T> {
    const worker = this.worker ?? this.start();
    const id = this.nextId++;
    const answered = new Promise<T>((resolve, reject) =>
      this.pending.set(id, { resolve: resolve as (result: unknown) => void, reject }),
    );
    worker.ref();
    worker.postMessage({ id, ...request });
    return answered;
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    this.fail(new Error(`the ${this.name} thread was closed`));
    await worker?.terminate();
  }

  private start(): Worker {
    const worker = typeScriptThread(this.entry, { name: this.name });
    worker.on("message", (reply: ThreadReply<unknown>) => this.settle(reply));
    worker.on("error", (err) => this.fail(err));
    worker.on("exit", (code) => {
      if (this.worker === worker) this.worker = null;
      this.fail(new Error(`the ${this.name} thread stopped (exit code ${code})`));
    });
    this.worker = worker;
    return worker;
  }

  private settle(reply: ThreadReply<unknown>): void {
    const waiting = this.pending.get(reply.id);
    if (!waiting) return;
    this.pending.delete(reply.id);
    if (!this.pending.size) this.worker?.unref();
    if ("error" in reply) waiting.reject(new Error(reply.error));
    else waiting.resolve(reply.result);
  }

  private fail(error: Error): void {
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
  }
}

/** Answers the requests posted to this thread one at a time, in the order they came, with what `handle` returns. */
export function answerRequests<Request>(
  port: MessagePort,
  handle: (request: Request) => Promise<{ result: unknown; transfer?: Transferable[] }>,
): void {
  let queue = Promise.resolve();
  port.on("message", (message: Request & { id: number }) => {
    queue = queue.then(async () => {
      try {
        const { result, transfer } = await handle(message);
        port.postMessage({ id: message.id, result } satisfies ThreadReply<unknown>, transfer ?? []);
      } catch (err) {
        port.postMessage({ id: message.id, error: (err as Error).message } satisfies ThreadReply<unknown>);
      }
    });
  });
}
