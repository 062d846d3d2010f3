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

/** Customers' messages' predictions by classifier: a tenant's retrained classifier is another object, never changed. */
const predictions = new WeakMap<IntentClassifier, RecentlyUsed<IntentPrediction>>();

/**
 * A customer's message's prediction, remembered by text: the same questions come back ("opening hours?"), and a
 * prediction was a few percent of a repeated question's CPU. Shared between callers, never to be changed.
 */
export async function predictMessage(classifier: IntentClassifier, text: string): Promise<IntentPrediction> {
  let known = predictions.get(classifier);
  if (!known) {
    known = new RecentlyUsed(2_000);
    predictions.set(classifier, known);
  }
  const remembered = known.get(text);
  if (remembered) return remembered;
  const [prediction] = await predictIntents(classifier, [text], { remember: true });
  known.set(text, Object.freeze(prediction!));
  return prediction!;
}
