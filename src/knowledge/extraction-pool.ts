import type { Worker } from "node:worker_threads";
import { typeScriptThread } from "../threads/typescript-thread.js";
import {
  type ExtractedHtml,
  type ExtractedPdf,
  type ExtractedSitemap,
  ExtractionError,
  type ExtractionLimits,
} from "./extract.js";
import type { ExtractionOutcome, ExtractionTask } from "./extraction-thread.js";

export interface DocumentReaderSettings {
  threads: number;
  /** A document still being read after this long is abandoned and its thread ended. */
  timeoutMs: number;
  /** Each thread's heap: a document that needs more ends its thread, not the process. */
  maxHeapMb: number;
  limits: ExtractionLimits;
}

interface Pending {
  task: ExtractionTask;
  resolve(value: unknown): void;
  reject(error: Error): void;
}

interface Thread {
  worker: Worker;
  ready: boolean;
  current: Pending | null;
  timer?: NodeJS.Timeout;
}

/**
 * Reads untrusted documents (crawled pages and sitemaps, uploaded PDFs) in a small pool of worker threads, so that a
 * hostile or merely enormous one cannot stall the event loop that serves requests: each runs within the
 * operator's caps on time, heap, decompressed bytes, pages and characters, and one past them fails alone.
 */
export class DocumentReader {
  private readonly threads = new Set<Thread>();
  private readonly idle: Thread[] = [];
  private readonly waiting: Pending[] = [];
  /** Threads started and still loading their code. */
  private loading = 0;
  private closed = false;

  constructor(private readonly settings: DocumentReaderSettings) {}

  html(html: string, url: string): Promise<ExtractedHtml> {
    return this.run({ kind: "html", html, url, limits: this.settings.limits }) as Promise<ExtractedHtml>;
  }

  pdf(bytes: Uint8Array): Promise<ExtractedPdf> {
    return this.run({ kind: "pdf", bytes, limits: this.settings.limits }) as Promise<ExtractedPdf>;
  }

  sitemap(xml: string): Promise<ExtractedSitemap> {
    return this.run({ kind: "sitemap", xml }) as Promise<ExtractedSitemap>;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const pending of this.waiting.splice(0)) pending.reject(new Error("the service is stopping"));
    await Promise.all([...this.threads].map((thread) => this.end(thread, new Error("the service is stopping"))));
  }

  private run(task: ExtractionTask): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error("the service is stopping"));
    return new Promise((resolve, reject) => {
      this.waiting.push({ task, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.waiting.length > this.idle.length + this.loading && this.threads.size < this.settings.threads) this.spawn();
    while (this.waiting.length > 0 && this.idle.length > 0) {
      const thread = this.idle.pop()!;
      const pending = this.waiting.shift()!;
      thread.current = pending;
      thread.timer = setTimeout(() => {
        const seconds = this.settings.timeoutMs / 1000;
        void this.end(
          thread,
          new ExtractionError(`Reading the document took longer than ${seconds} s, the most this service allows.`),
        );
      }, this.settings.timeoutMs);
      thread.worker.postMessage(pending.task);
    }
  }

  private spawn(): void {
    const worker = typeScriptThread(new URL("./extraction-thread.ts", import.meta.url), {
      resourceLimits: { maxOldGenerationSizeMb: this.settings.maxHeapMb },
    });
    // An idle pool does not keep the process alive; a request waiting on it does.
    worker.unref();
    const thread: Thread = { worker, current: null, ready: false };
    this.loading++;
    this.threads.add(thread);
    worker.on("message", (outcome: ExtractionOutcome | "ready") => {
      // Timed from the moment a thread that has loaded its code receives the document, not from its start.
      if (outcome === "ready") {
        thread.ready = true;
        this.loading--;
        this.release(thread);
      } else this.settle(thread, outcome);
    });
    worker.on("error", (error: Error & { code?: string }) => {
      const heapFull = error.code === "ERR_WORKER_OUT_OF_MEMORY";
      const reason = heapFull
        ? new ExtractionError(
            `Reading the document needed more than ${this.settings.maxHeapMb} MiB of memory, the most this service allows.`,
          )
        : error;
      void this.end(thread, reason);
    });
    worker.on("exit", () => void this.end(thread, new Error("the document reader stopped")));
  }

  private settle(thread: Thread, outcome: ExtractionOutcome): void {
    const pending = thread.current;
    clearTimeout(thread.timer);
    thread.current = null;
    if (outcome.ok) pending?.resolve(outcome.value);
    else pending?.reject(outcome.extraction ? new ExtractionError(outcome.message) : new Error(outcome.message));
    this.release(thread);
  }

  private release(thread: Thread): void {
    this.idle.push(thread);
    this.pump();
  }

  /** Ends a thread (after a timeout, a crash, or at close), failing the document it was reading. */
  private async end(thread: Thread, reason: Error): Promise<void> {
    if (!this.threads.delete(thread)) return;
    if (!thread.ready) {
      this.loading--;
      // A thread that cannot even load fails a document, rather than being restarted for ever.
      this.waiting.shift()?.reject(reason);
    }
    clearTimeout(thread.timer);
    const idleAt = this.idle.indexOf(thread);
    if (idleAt !== -1) this.idle.splice(idleAt, 1);
    thread.current?.reject(reason);
    thread.current = null;
    await thread.worker.terminate();
    if (!this.closed) this.pump();
  }
}
