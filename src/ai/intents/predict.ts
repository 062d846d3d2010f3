import { RecentlyUsed } from "../remembered.js";
import { encodeMeaning } from "../semantic.js";
import type { IntentClassifier, IntentPrediction } from "./classifier.js";

/**
 * The classifier's predictions, with the texts' sentence encodings when it reads them. A customer's message is
 * remembered (the retriever reads its encoding next); a batch of test texts is not.
 */
export async function predictIntents(
  classifier: IntentClassifier,
  texts: string[],
  { remember = false } = {},
): Promise<IntentPrediction[]> {
  const meanings = classifier.usesMeaning ? await encodeMeaning(texts, { remember }) : undefined;
  return classifier.classifyMany(texts, meanings);
}

/** A number per classifier: a tenant's retrained classifier is another object, and a classifier is never changed. */
const classifierIds = new WeakMap<IntentClassifier, number>();
let nextClassifierId = 0;
/** Customers' messages' predictions by classifier and text, over all tenants' classifiers: some MB at most. */
const predictions = new RecentlyUsed<IntentPrediction>(10_000);

/**
 * A customer's message's prediction, remembered by classifier and text: the same questions come back ("opening
 * hours?"), and a prediction was a few percent of a repeated question's CPU. Shared between callers, never to be changed.
 */
export async function predictMessage(classifier: IntentClassifier, text: string): Promise<IntentPrediction> {
  let id = classifierIds.get(classifier);
  if (id === undefined) {
    id = nextClassifierId++;
    classifierIds.set(classifier, id);
  }
  const key = `${id}\n${text}`;
  const remembered = predictions.get(key);
  if (remembered) return remembered;
  const [prediction] = await predictIntents(classifier, [text], { remember: true });
  predictions.set(key, Object.freeze(prediction!));
  return prediction!;
}
