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
