import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse } from "csv-parse/sync";
import { type IntentExample, trainIntentClassifier } from "../../src/ai/intents/classifier.js";
import { encodeMeaning } from "../../src/ai/semantic.js";

/** BANKING77's training file, as the service ships it (src/ai/data/README.md: source and licence). */
const banking77Path = fileURLToPath(new URL("../../src/ai/data/banking77-train.csv", import.meta.url));

export function readBanking77(): IntentExample[] {
  const rows: string[][] = parse(readFileSync(banking77Path), { from_line: 2 });
  return rows.map(([text, intent]) => ({ text: text!, intent: intent! }));
}

export function shuffled<T>(items: T[], seed: number): T[] {
  const copy = [...items];
  let state = seed >>> 0;
  for (let i = copy.length - 1; i > 0; i--) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    const j = Math.floor((state / 2 ** 32) * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

/** Per intent, a seeded shuffle then the first `trainShare` to train; both parts keep the shuffled order. */
export function stratifiedSplit(rows: IntentExample[], trainShare: number, seed = 77) {
  const byIntent = new Map<string, IntentExample[]>();
  for (const row of rows) {
    const group = byIntent.get(row.intent);
    if (group) group.push(row);
    else byIntent.set(row.intent, [row]);
  }
  const train: IntentExample[] = [];
  const test: IntentExample[] = [];
  for (const group of byIntent.values()) {
    const order = shuffled(group, seed);
    const cut = Math.round(order.length * trainShare);
    train.push(...order.slice(0, cut));
    test.push(...order.slice(cut));
  }
  return { train, test };
}

export function firstPerIntent(rows: IntentExample[], count: number): IntentExample[] {
  const seen = new Map<string, number>();
  return rows.filter((row) => {
    const n = seen.get(row.intent) ?? 0;
    seen.set(row.intent, n + 1);
    return n < count;
  });
}

function macroF1(expected: string[], predicted: string[]): number {
  const intents = new Set(expected);
  let sum = 0;
  for (const intent of intents) {
    let truePositives = 0;
    let predictedCount = 0;
    let actualCount = 0;
    expected.forEach((label, i) => {
      if (predicted[i] === intent) predictedCount++;
      if (label === intent) actualCount++;
      if (label === intent && predicted[i] === intent) truePositives++;
    });
    sum += truePositives === 0 ? 0 : (2 * truePositives) / (predictedCount + actualCount);
  }
  return sum / intents.size;
}

const percent = (value: number) => `${(value * 100).toFixed(2)} %`;

export async function benchIntents(): Promise<void> {
  const rows = readBanking77();
  const { train, test } = stratifiedSplit(rows, 0.8);
  const settings = [
    { name: "all examples (80 % split)", examples: train, anchor: "93.66 % (BERT-large, full set)" },
    { name: "10 per intent", examples: firstPerIntent(train, 10), anchor: "85.19 % (USE+ConveRT), 83.42 % (BERT)" },
  ];
  const texts = test.map((row) => row.text);
  const expected = test.map((row) => row.intent);
  // Encoded before the clock starts for each setting, once: the same text's encoding is what both read.
  const encodingStarted = performance.now();
  const meaningOf = new Map((await encodeMeaning(rows.map((row) => row.text))).map((meaning, i) => [rows[i]!.text, meaning!]));
  const encodingTime = (performance.now() - encodingStarted) / rows.length;

  console.log(
    "| setting | train examples | test examples | accuracy | macro-F1 | confidence ≥ 0.5: share / accuracy | train time | classify per 1,000 | published anchor |",
  );
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|---|");
  for (const setting of settings.flatMap((s) => [
    { ...s, meaning: false },
    { ...s, name: `${s.name}, with meaning`, meaning: true },
  ])) {
    const started = performance.now();
    const classifier = trainIntentClassifier(
      setting.examples,
      setting.meaning ? { meanings: setting.examples.map((example) => meaningOf.get(example.text)!) } : {},
    );
    const trained = performance.now();
    const predictions = classifier.classifyMany(texts, setting.meaning ? texts.map((text) => meaningOf.get(text)!) : undefined);
    const classified = performance.now();

    const predicted = predictions.map((prediction) => prediction.intent);
    const correct = predicted.filter((intent, i) => intent === expected[i]).length;
    const confident = predictions.flatMap((prediction, i) =>
      prediction.confidence >= 0.5 ? [prediction.intent === expected[i]] : [],
    );
    const confidentCorrect = confident.filter(Boolean).length;
    console.log(
      `| ${setting.name} | ${setting.examples.length} | ${test.length} | ${percent(correct / test.length)} | ${percent(macroF1(expected, predicted))} ` +
        `| ${percent(confident.length / test.length)} / ${percent(confidentCorrect / confident.length)} ` +
        `| ${((trained - started) / 1000).toFixed(2)} s | ${(((classified - trained) * 1000) / texts.length).toFixed(0)} ms | ${setting.anchor} |`,
    );
  }

  const started = performance.now();
  trainIntentClassifier(rows);
  const wordsOnly = performance.now();
  trainIntentClassifier(rows, { meanings: rows.map((row) => meaningOf.get(row.text)!) });
  const seconds = (ms: number) => (ms / 1000).toFixed(2);
  console.log(
    `\nTraining on the whole file (${rows.length} examples, 77 intents): ${seconds(wordsOnly - started)} s by words, ` +
      `${seconds(performance.now() - wordsOnly)} s with meaning, plus encoding the examples (${encodingTime.toFixed(1)} ms each, ` +
      `${seconds(encodingTime * rows.length)} s; a message is encoded once for intents and answers alike).`,
  );
  console.log(
    "Test examples are the held-out 20 % of the BANKING77 training file (seeded stratified split), not the official test set.",
  );
}
