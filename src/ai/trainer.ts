import { RequestThread } from "../threads/request-thread.js";
import { type EntryClassifier, type EntryClassifierJSON, loadEntryClassifier } from "./entry-classifier.js";
import { type IntentClassifier, type IntentExample, loadIntentClassifier } from "./intents/classifier.js";

/** An FAQ entry to learn: its id and the texts that stand for it (src/knowledge/faq-entries.ts). */
export interface EntryTexts {
  id: string;
  texts: string[];
}

export type TrainingRequest = { kind: "intents"; examples: IntentExample[] } | { kind: "entries"; entries: EntryTexts[] };

/**
 * Trains tenants' models in a worker thread, one at a time: intent classifiers (50,000 examples take seconds of CPU)
 * and FAQ entry classifiers (a bank's FAQ, seconds too), which on the serving thread would stall every request of
 * the instance.
 */
export class ModelTrainer {
  private readonly thread = new RequestThread<TrainingRequest>(new URL("./train-worker.ts", import.meta.url), "model-trainer");

  /** Trainings asked for and not finished yet. */
  get busy(): number {
    return this.thread.busy;
  }

  async train(examples: IntentExample[]): Promise<IntentClassifier> {
    return loadIntentClassifier(await this.thread.ask({ kind: "intents", examples }));
  }

  /** Null when there is nothing to tell apart: fewer than two entries, or no sentence encoder. */
  async trainEntries(entries: EntryTexts[]): Promise<EntryClassifier | null> {
    const model = await this.thread.ask<EntryClassifierJSON | null>({ kind: "entries", entries });
    return model ? loadEntryClassifier(model) : null;
  }

  close(): Promise<void> {
    return this.thread.close();
  }
}
