import { parentPort } from "node:worker_threads";
import { encodeMeaning } from "../semantic.js";
import { trainIntentClassifier } from "./classifier.js";
import type { TrainingReply, TrainingRequest } from "./trainer.js";

// Encoding an example costs about 9 ms of this thread's CPU: past this many (90 s), the model learns from words alone.
const maxMeaningExamples = 10_000;

async function train(examples: TrainingRequest["examples"]): Promise<unknown> {
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

// One training at a time, in the order asked: a request that arrives meanwhile waits for the one before it.
let queue = Promise.resolve();
parentPort!.on("message", ({ id, examples }: TrainingRequest) => {
  queue = queue.then(async () => {
    let reply: TrainingReply;
    try {
      reply = { id, model: await train(examples) };
    } catch (err) {
      reply = { id, error: (err as Error).message };
    }
    parentPort!.postMessage(reply);
  });
});
