import type { MessagePort, Transferable, Worker } from "node:worker_threads";
import { typeScriptThread } from "./typescript-thread.js";

/**
 * An error as it crosses threads: its name and message, and its own fields where they can be copied (a database
 * error's `code` and `detail`, a driver error's `cause`), which callers read to tell one failure from another.
 */
interface ThreadError {
  name: string;
  message: string;
  fields?: Record<string, unknown>;
}

/** What a request thread posts back: the answer to request `id`, or why there is none. */
type ThreadReply<T> = { id: number; result: T } | { id: number; error: ThreadError };

interface Pending {
  resolve(result: unknown): void;
  reject(error: Error): void;
}

export interface RequestThreadOptions {
  /** What the thread reads with `threadData()`, copied to it as it starts. */
  data?: unknown;
  /**
   * Whether a thread that died is started again for the next request (the default). A thread that holds state its
   * requests depend on, such as an open database, is not: after it dies every request fails.
   */
  restart?: boolean;
}

/**
 * Asks a worker thread running `entry` (a TypeScript module answering `{ id, ...request }` with a `ThreadReply`) and
 * waits for its answers. The thread starts on the first request, stays for the next ones, and is started again if it
 * dies (unless told not to); it holds the process open only while a request waits for it.
 */
export class RequestThread<Request extends object> {
  private worker: Worker | null = null;
  private stopped: Error | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  constructor(
    private readonly entry: URL,
    private readonly name: string,
    private readonly options: RequestThreadOptions = {},
  ) {}

  /** Requests asked for and not answered yet. */
  get busy(): number {
    return this.pending.size;
  }

  ask<T>(request: Request): Promise<T> {
    if (this.stopped) return Promise.reject(this.stopped);
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
    const closed = new Error(`the ${this.name} thread was closed`);
    if (!(this.options.restart ?? true)) this.stopped = closed;
    this.fail(closed);
    await worker?.terminate();
  }

  private start(): Worker {
    const worker = typeScriptThread(this.entry, { name: this.name }, this.options.data);
    worker.on("message", (reply: ThreadReply<unknown>) => this.settle(reply));
    worker.on("error", (err) => this.fail(err));
    worker.on("exit", (code) => {
      if (this.worker !== worker) return;
      this.worker = null;
      const error = new Error(`the ${this.name} thread stopped (exit code ${code})`);
      if (!(this.options.restart ?? true)) this.stopped = error;
      this.fail(error);
    });
    this.worker = worker;
    return worker;
  }

  private settle(reply: ThreadReply<unknown>): void {
    const waiting = this.pending.get(reply.id);
    if (!waiting) return;
    this.pending.delete(reply.id);
    if (!this.pending.size) this.worker?.unref();
    if ("error" in reply)
      waiting.reject(Object.assign(new Error(reply.error.message), reply.error.fields, { name: reply.error.name }));
    else waiting.resolve(reply.result);
  }

  private fail(error: Error): void {
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
  }
}

function threadError(err: unknown): ThreadError {
  if (!(err instanceof Error)) return { name: "Error", message: String(err) };
  const fields: Record<string, unknown> = {};
  const own = Object.hasOwn(err, "cause") ? { ...err, cause: err.cause } : { ...err };
  for (const [name, value] of Object.entries(own)) {
    try {
      fields[name] = structuredClone(value);
    } catch {
      // A function or a handle stays behind: the rest of the error still tells what failed.
    }
  }
  return { name: err.name, message: err.message, fields };
}

export interface AnswerOptions {
  /**
   * Whether each request is handled as it comes, without waiting for the ones before it to finish. The default
   * answers one at a time, in order; a thread whose requests wait on each other (a transaction's statements and the
   * commit that ends it) needs them handled at once.
   */
  concurrent?: boolean;
}

/** Answers the requests posted to this thread with what `handle` returns. */
export function answerRequests<Request>(
  port: MessagePort,
  handle: (request: Request) => Promise<{ result: unknown; transfer?: Transferable[] }>,
  options: AnswerOptions = {},
): void {
  const answer = async (message: Request & { id: number }) => {
    try {
      const { result, transfer } = await handle(message);
      port.postMessage({ id: message.id, result } satisfies ThreadReply<unknown>, transfer ?? []);
    } catch (err) {
      port.postMessage({ id: message.id, error: threadError(err) } satisfies ThreadReply<unknown>);
    }
  };
  let queue = Promise.resolve();
  port.on("message", (message: Request & { id: number }) => {
    if (options.concurrent) void answer(message);
    else queue = queue.then(() => answer(message));
  });
}
