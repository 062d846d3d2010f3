import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  decisionInput,
  decisionInputs,
  featureNames,
  passageOf,
  type RelevanceFeatures,
  type RelevanceModel,
  relevanceFeatures,
  relevanceLogit,
} from "../../src/ai/relevance.js";
import { searchKnowledge } from "../../src/knowledge/search.js";
import { startTestApp } from "../helpers/app.js";
import { type AnswerCase, answerSetsDir, ingestAnswerSet, isEntry, readAnswerSet } from "./answer-set.js";

/**
 * Fits the offline engine's relevance model on the development set (test/fixtures/answers) and writes it to
 * src/ai/relevance-weights.json: `npm run calibrate:answers`.
 * 1. Passage model: logistic regression of "this passage is the question's FAQ entry" on the relevance features, over
 *    every candidate the retriever's first stage gives each answerable question.
 * 2. Decision: logistic regression of "the best passage is the right answer" (false for unanswerable questions) on its
 *    log-odds and its lead over the second; the threshold is the lowest probability at which the answers given on the
 *    development set stay within the stated precision.
 */

// Wrong answers per answer given, at most: a bank would rather hand over than mislead.
const precisionTarget = 0.97;
// Another set than the development set, e.g. to try the fit on a set of one's own: `npm run calibrate:answers -- <dir>`.
const setName = process.argv[2] ?? "answers";
const pool = 30;
const l2 = 0.0005;

type Example = { x: number[]; y: number };

function fitLogistic(examples: Example[], dims: number, epochs = 4000, rate = 0.5): { bias: number; w: number[] } {
  let bias = 0;
  const w = new Array<number>(dims).fill(0);
  const positives = examples.filter((e) => e.y === 1).length;
  // Balanced classes: one right passage among thirty would otherwise teach "never".
  const weightOf = (y: number) =>
    y === 1 ? examples.length / (2 * positives) : examples.length / (2 * (examples.length - positives));
  for (let epoch = 0; epoch < epochs; epoch++) {
    let gBias = 0;
    const g = new Array<number>(dims).fill(0);
    for (const { x, y } of examples) {
      let z = bias;
      for (let i = 0; i < dims; i++) z += w[i]! * x[i]!;
      const error = (1 / (1 + Math.exp(-z)) - y) * weightOf(y);
      gBias += error;
      for (let i = 0; i < dims; i++) g[i]! += error * x[i]!;
    }
    bias -= (rate * gBias) / examples.length;
    for (let i = 0; i < dims; i++) w[i]! -= rate * (g[i]! / examples.length + l2 * w[i]!);
  }
  return { bias, w };
}

const round = (n: number) => Math.round(n * 1000) / 1000;

interface Candidates {
  item: AnswerCase;
  features: RelevanceFeatures[];
  right: boolean[];
}

async function collect(): Promise<Candidates[]> {
  const set = readAnswerSet(setName);
  const app = await startTestApp({ LOG_LEVEL: "silent", RATE_LIMIT_MAX: "100000000" });
  try {
    const { tenantId, apiKey } = await app.tenant("Calibration");
    await ingestAnswerSet(app, apiKey, set);
    const out: Candidates[] = [];
    for (const item of set.cases) {
      const hits = await searchKnowledge(app.services, tenantId, item.question, pool);
      out.push({
        item,
        features: await relevanceFeatures(item.question, hits.map(passageOf)),
        right: hits.map((h) => (item.faq ? isEntry(h, item.faq) : false)),
      });
    }
    return out;
  } finally {
    await app.close();
  }
}

const vector = (f: RelevanceFeatures) => featureNames.map((name) => f[name]);

function passageModel(data: Candidates[]): RelevanceModel["passage"] {
  const examples = data
    .filter((d) => d.item.expect === "answer" && d.right.some(Boolean))
    .flatMap((d) => d.features.map((f, i) => ({ x: vector(f), y: d.right[i] ? 1 : 0 })));
  const { bias, w } = fitLogistic(examples, featureNames.length);
  return { bias: round(bias), weights: Object.fromEntries(featureNames.map((n, i) => [n, round(w[i]!)])) as never };
}

function decisionModel(data: Candidates[], passage: RelevanceModel["passage"]) {
  const model = { passage, decision: { bias: 0, weights: {}, threshold: 0 } } as unknown as RelevanceModel;
  // As the engine decides: on the best FAQ unit among the five passages retrieval gives it.
  const tops = data.map((d) => {
    const ranked = {
      features: d.features.slice(0, 5),
      logits: d.features.slice(0, 5).map((f) => relevanceLogit(f, model)),
    };
    const best = ranked.logits.length ? ranked.logits.indexOf(Math.max(...ranked.logits)) : -1;
    const input = best >= 0 ? decisionInput(ranked, best) : null;
    return {
      x: decisionInputs.map((name) => input?.[name] ?? 0),
      y: best >= 0 && d.right[best] ? 1 : 0,
      answerable: d.item.expect === "answer",
    };
  });
  const fitted = fitLogistic(tops, decisionInputs.length);
  const probability = (x: number[]) => 1 / (1 + Math.exp(-x.reduce((z, v, i) => z + fitted.w[i]! * v, fitted.bias)));
  const ranked = tops.map((t) => ({ ...t, p: probability(t.x) })).sort((a, b) => b.p - a.p);
  let threshold = 1;
  let right = 0;
  let wrong = 0;
  for (const t of ranked) {
    if (t.y) right++;
    else wrong++;
    if (wrong / (right + wrong) <= 1 - precisionTarget) threshold = t.p;
  }
  const answered = ranked.filter((t) => t.p >= threshold);
  return {
    decision: {
      bias: round(fitted.bias),
      weights: Object.fromEntries(decisionInputs.map((n, i) => [n, round(fitted.w[i]!)])) as never,
      threshold: round(threshold),
    },
    stats: {
      answerable: tops.filter((t) => t.answerable).length,
      unanswerable: tops.filter((t) => !t.answerable).length,
      answeredRight: answered.filter((t) => t.y).length,
      answeredWrong: answered.filter((t) => !t.y).length,
    },
  };
}

const data = await collect();
const passage = passageModel(data);
const { decision, stats } = decisionModel(data, passage);
const model = {
  passage,
  decision,
  calibration: {
    set: path.relative(fileURLToPath(new URL("../..", import.meta.url)), path.resolve(answerSetsDir, setName)),
    precisionTarget,
    candidatesPerQuestion: pool,
    ...stats,
  },
};
writeFileSync(
  fileURLToPath(new URL("../../src/ai/relevance-weights.json", import.meta.url)),
  `${JSON.stringify(model, null, 2)}\n`,
);
console.log(JSON.stringify(model, null, 2));
