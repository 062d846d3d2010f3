import type { Worker } from "node:worker_threads";
import { typeScriptThread } from "../threads/typescript-thread.js";
import { type EntryClassifier, type EntryClassifierJSON, loadEntryClassifier } from "./entry-classifier.js";
import { type IntentClassifier, type IntentExample, loadIntentClassifier } from "./intents/classifier.js";

/** An FAQ entry to learn: its id and the texts that stand for it (src/knowledge/faq-entries.ts). */
export interface EntryTexts {
  id: string;
  texts: string[];
}

type Training = { kind: "intents"; examples: IntentExample[] } | { kind: "entries"; entries: EntryTexts[] };

export type TrainingRequest = Training & { id: number };

export type TrainingReply = { id: number; model: unknown } | { id: number; error: string };

type Trained = IntentClassifier | EntryClassifier | null;

interface Pending {
  load(model: unknown): Trained;
  resolve(model: Trained): void;
  reject(error: Error): void;
}

/**
 * Trains tenants' models in a worker thread, one at a time: intent classifiers (50,000 examples take seconds of CPU)
 * and FAQ entry classifiers (a bank's FAQ, seconds too), which on the serving thread would stall every request of
 * the instance. The thread starts on the first training, stays for the next ones, and is started again if it dies.
 */
export class ModelTrainer {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  /** Trainings asked for and not finished yet. */
  get busy(): number {
    return this.pending.size;
  }

  train(examples: IntentExample[]): Promise<IntentClassifier> {
    return this.request({ kind: "intents", examples }, loadIntentClassifier) as Promise<IntentClassifier>;
  }

  /** Null when there is nothing to tell apart: fewer than two entries, or no sentence encoder. */
  trainEntries(entries: EntryTexts[]): Promise<EntryClassifier | null> {
    return this.request({ kind: "entries", entries }, (model) =>
      model ? loadEntryClassifier(model as EntryClassifierJSON) : null,
    ) as Promise<EntryClassifier | null>;
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    this.fail(new Error("the model trainer was closed"));
    await worker?.terminate();
  }

  private request(training: Training, load: (model: unknown) => Trained): Promise<Trained> {
    const worker = this.worker ?? this.start();
    const id = this.nextId++;
    const done = new Promise<Trained>((resolve, reject) => this.pending.set(id, { load, resolve, reject }));
    // Held while a training runs (a CLI awaiting it must not exit), let go when idle.
    worker.ref();
    worker.postMessage({ id, ...training } satisfies TrainingRequest);
    return done;
  }

  private start(): Worker {
    const worker = typeScriptThread(new URL("./train-worker.ts", import.meta.url), { name: "model-trainer" });
    worker.on("message", (reply: TrainingReply) => this.settle(reply));
    worker.on("error", (err) => this.fail(err));
    worker.on("exit", (code) => {
      if (this.worker === worker) this.worker = null;
      this.fail(new Error(`the model trainer stopped (exit code ${code})`));
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
    else waiting.resolve(waiting.load(reply.model));
  }

  private fail(error: Error): void {
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
  }
}
