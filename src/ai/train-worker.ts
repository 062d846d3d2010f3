import { parentPort } from "node:worker_threads";
import { answerRequests } from "../threads/request-thread.js";
import { trainEntryClassifier } from "./entry-classifier.js";
import { trainIntentClassifier } from "./intents/classifier.js";
import { encodeMeaning } from "./semantic.js";
import { type EntryTexts, readTexts, type TrainedEntries, type TrainingRequest } from "./trainer.js";

// Encoding an example costs about 9 ms of this thread's CPU: past this many (90 s), the model learns from words alone.
const maxMeaningExamples = 10_000;

async function trainIntents(examples: Extract<TrainingRequest, { kind: "intents" }>["examples"]): Promise<unknown> {
  const meanings =
    examples.length <= maxMeaningExamples
      ? await encodeMeaning(
          examples.map((example) => example.text),
          { remember: false },
        )
      : [];
  // Without the encoder (it failed to load) every meaning is null, and the model learns from words alone.
  const complete = meanings.length > 0 && meanings.every((meaning) => meaning !== null);
  return trainIntentClassifier(examples, complete ? { meanings: meanings as Float32Array[] } : {}).toJSON();
}

async function trainEntries(entries: EntryTexts[]): Promise<TrainedEntries> {
  const encoded = await encodeMeaning(
    entries.flatMap((entry) => entry.texts),
    { remember: false },
  );
  let at = 0;
  const withVectors = entries.map((entry) => {
    const vectors = encoded.slice(at, at + entry.texts.length).filter((v): v is Float32Array => v !== null);
    at += entry.texts.length;
    return { id: entry.id, vectors };
  });
  // An entry's first texts, its question and its question with the answer, are what the relevance model reads of it.
  const meanings: TrainedEntries["meanings"] = [];
  at = 0;
  for (const entry of entries) {
    for (const [i, text] of entry.texts.slice(0, readTexts).entries()) {
      const vector = encoded[at + i];
      if (vector) meanings.push({ text, vector });
    }
    at += entry.texts.length;
  }
  return { model: trainEntryClassifier({ entries: withVectors })?.toJSON() ?? null, meanings };
}

// One training at a time, in the order asked: a request that arrives meanwhile waits for the one before it.
answerRequests<TrainingRequest>(parentPort!, async (request) => ({
  result: request.kind === "intents" ? await trainIntents(request.examples) : await trainEntries(request.entries),
}));
