import { RequestThread } from "../threads/request-thread.js";
import { type EntryClassifier, type EntryClassifierJSON, loadEntryClassifier } from "./entry-classifier.js";
import { type IntentClassifier, type IntentExample, loadIntentClassifier } from "./intents/classifier.js";
import { rememberMeanings } from "./semantic.js";

/** An FAQ entry to learn: its id and the texts that stand for it (src/knowledge/faq-entries.ts). */
export interface EntryTexts {
  id: string;
  texts: string[];
}

/**
 * How many of an entry's texts (src/knowledge/faq-entries.ts `entryTexts`: its question, then its question with the
 * answer) the relevance model encodes for each question it ranks the entry for.
 */
export const readTexts = 2;

/** A trained entry classifier, with the encodings of the texts the relevance model reads of each entry. */
export interface TrainedEntries {
  model: EntryClassifierJSON | null;
  meanings: Array<{ text: string; vector: Float32Array }>;
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

  /**
   * Null when there is nothing to tell apart: fewer than two entries, or no sentence encoder. The training encodes every
   * entry's texts; those the relevance model reads are remembered here, so that the first questions after a start or
   * a change do not wait for the encoder to encode them again.
   */
  async trainEntries(entries: EntryTexts[]): Promise<EntryClassifier | null> {
    const { model, meanings } = await this.thread.ask<TrainedEntries>({ kind: "entries", entries });
    rememberMeanings(meanings);
    return model ? loadEntryClassifier(model) : null;
  }

  close(): Promise<void> {
    return this.thread.close();
  }
}
