import { parentPort } from "node:worker_threads";
import { trainIntentClassifier } from "./classifier.js";
import type { TrainingReply, TrainingRequest } from "./trainer.js";

// One training at a time: a request that arrives meanwhile waits in the port's queue.
parentPort!.on("message", ({ id, examples }: TrainingRequest) => {
  let reply: TrainingReply;
  try {
    reply = { id, model: trainIntentClassifier(examples).toJSON() };
  } catch (err) {
    reply = { id, error: (err as Error).message };
  }
  parentPort!.postMessage(reply);
});
