import type { Worker } from "node:worker_threads";
import { typeScriptThread } from "../../threads/typescript-thread.js";
import { type IntentClassifier, type IntentExample, loadIntentClassifier } from "./classifier.js";

export interface TrainingRequest {
  id: number;
  examples: IntentExample[];
}

export type TrainingReply = { id: number; model: unknown } | { id: number; error: string };

interface Pending {
  resolve(classifier: IntentClassifier): void;
  reject(error: Error): void;
}

/**
 * Trains intent classifiers in a worker thread, one at a time: training 50,000 examples takes seconds of CPU,
 * which on the serving thread would stall every request of the instance. The thread starts on the first
 * training, stays for the next ones, and is started again if it dies.
 */
export class IntentTrainer {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  /** Trainings asked for and not finished yet. */
  get busy(): number {
    return this.pending.size;
  }

  train(examples: IntentExample[]): Promise<IntentClassifier> {
    const worker = this.worker ?? this.start();
    const id = this.nextId++;
    const done = new Promise<IntentClassifier>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    // Held while a training runs (a CLI awaiting it must not exit), let go when idle.
    worker.ref();
    worker.postMessage({ id, examples } satisfies TrainingRequest);
    return done;
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    this.fail(new Error("the intent trainer was closed"));
    await worker?.terminate();
  }

  private start(): Worker {
    const worker = typeScriptThread(new URL("./train-worker.ts", import.meta.url), { name: "intent-trainer" });
    worker.on("message", (reply: TrainingReply) => this.settle(reply));
    worker.on("error", (err) => this.fail(err));
    worker.on("exit", (code) => {
      if (this.worker === worker) this.worker = null;
      this.fail(new Error(`the intent trainer stopped (exit code ${code})`));
    });
    this.worker = worker;
    return worker;
  }

  private settle(reply: TrainingReply): void {
    const waiting = this.pending.get(reply.id);
    if (!waiting) return;
    this.pending.delete(reply.id);
    if (!this.pending.size) this.worker?.unref();
    if ("error" in reply) waiting.reject(new Error(reply.error));
    else waiting.resolve(loadIntentClassifier(reply.model));
  }

  private fail(error: Error): void {
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
  }
}
