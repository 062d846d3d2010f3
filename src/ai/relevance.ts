import { bankingLexicon, contentTerms, cosine, type Lexicon, passageProfile, passageTerms } from "./lexicon.js";
import weights from "./relevance-weights.json" with { type: "json" };
import { encodeMeaning, meaningSimilarity } from "./semantic.js";

/** A retrieved text as the relevance model reads it: an FAQ unit has its question apart from its answer. */
export interface Passage {
  /** The FAQ question (or glossary term) the passage answers; null for ordinary text. */
  question: string | null;
  body: string;
  /** The source's title and the headings above the passage. */
  title: string;
  /** Cosine similarity of the passage's embedding to the question's. */
  similarity: number;
  /**
   * The probability the tenant's FAQ entry classifier gives this passage's entry (src/ai/entry-classifier.ts), 0 for
   * ordinary text; undefined when the tenant has no classifier, which ranks with the model fitted without it.
   */
  entry?: number;
}

/** A passage with how close its meaning is to the question's (src/ai/semantic.ts). */
interface Read extends Passage {
  meaning: number;
  meaningEntry: number;
}

/**
 * A retrieved chunk as a passage: an FAQ unit (src/knowledge/faq.ts) has its question on its first line, which is also
 * the last part of its title ("Cards FAQ › How do I block my card?").
 */
export function passageOf(chunk: {
  title: string | null;
  sourceTitle: string;
  content: string;
  similarity: number;
  entry?: number | null;
}): Passage {
  const lines = chunk.content.split("\n");
  const heading = chunk.title?.split(" › ").at(-1)?.trim();
  // A chapter title with no text of its own ("Cards") may stand above the question.
  const at = heading ? lines.slice(0, 3).findIndex((line) => line.trim() === heading) : -1;
  const body =
    at >= 0
      ? lines
          .slice(at + 1)
          .join("\n")
          .trim()
      : "";
  const unit = at >= 0 && body !== "";
  return {
    question: unit ? heading! : null,
    body: unit ? body : chunk.content,
    title: chunk.title ?? chunk.sourceTitle,
    similarity: chunk.similarity,
    entry: chunk.entry == null ? undefined : unit ? chunk.entry : 0,
  };
}

/** The signals the model weighs, each about 0..1; the calibration script fits their weights on the development set. */
export interface RelevanceFeatures {
  /** Share of the question's specific words (idf-weighted) the passage has, counting typos and associated words. */
  coverage: number;
  /** The same against the FAQ question alone. */
  questionCoverage: number;
  /** Share of the FAQ question's words the customer's question has: does it ask what the FAQ entry answers? */
  questionPrecision: number;
  /** Cosine of the intent profiles of the question and the passage. */
  intentMatch: number;
  similarity: number;
  /** Cosine of the sentence encodings of the question and the FAQ question (0 for ordinary text). */
  meaning: number;
  /** The same against the FAQ question with its answer: an answer's words say what it is about too. */
  meaningEntry: number;
  /** How specific the most specific word of the question that the passage lacks is (0: it lacks none). */
  missing: number;
  /** Passage.entry: which of all the tenant's FAQ entries the question asks about, read against each other. */
  entry: number;
}

export const featureNames = [
  "coverage",
  "questionCoverage",
  "questionPrecision",
  "intentMatch",
  "similarity",
  "meaning",
  "meaningEntry",
  "missing",
  "entry",
] as const satisfies ReadonlyArray<keyof RelevanceFeatures>;

export interface RelevanceModel {
  /** Logistic weights of the features: the probability that one passage answers the question (`entry` 0 without classifier). */
  passage: { bias: number; weights: Record<(typeof featureNames)[number], number> };
  /**
   * Whether the best passage is an answer at all: a logistic model of its log-odds, its lead over the next passage
   * and a few of its features (the passage model ranks within one question; this one judges across questions).
   * The probability must reach `threshold`, chosen by the calibration for a stated precision.
   */
  decision: { bias: number; weights: Record<(typeof decisionInputs)[number], number>; threshold: number };
}

export const decisionInputs = ["top", "lead", "meaning", "meaningEntry", "coverage", "questionPrecision", "entry"] as const;

/**
 * Fitted by `npm run calibrate:answers` on the development banks (test/fixtures/answers*); see the file's `calibration`.
 * Two models: for tenants with an FAQ entry classifier, and without one (an FAQ of a few entries), whose passages lack
 * the strongest signal and whose other weights must stand without it.
 */
export const relevanceModels: { withEntries: RelevanceModel; withoutEntries: RelevanceModel } = weights;

// An associated word counts for less than the word itself, and weak associations not at all.
const associationFloor = 0.55;
const associationWeight = 0.75;
const typoWeight = 0.85;
const titleWeight = 0.6;

/** Edit distance with transpositions ("recieve"), stopping as soon as it must exceed the limit. */
function editDistanceAtMost(a: string, b: string, limit: number): boolean {
  if (Math.abs(a.length - b.length) > limit) return false;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2]! + 1);
      current[j] = d;
      best = Math.min(best, d);
    }
    if (best > limit) return false;
    before = previous;
    previous = current;
  }
  return previous[b.length]! <= limit;
}

/** A misspelling of a word of some length ("recieve", "withdrawl") is the word; short words are too easily another word. */
function typoOf(a: string, b: string): boolean {
  if (a.length < 5 || b.length < 5 || /\d/.test(a) || /\d/.test(b)) return false;
  return editDistanceAtMost(a, b, a.length >= 8 ? 2 : 1);
}

/** How well words carry a term: `strength` is called for every pair of words of a question and a passage. */
// Pairs of words recur from question to question (a knowledge base has a vocabulary): remembered per lexicon, bounded.
// By term, then word: a key made of the two words was a string built for every pair looked up.
interface PairCache {
  byTerm: Map<string, Map<string, number>>;
  pairs: number;
}
const pairCaches = new WeakMap<Lexicon, PairCache>();
const maxRememberedPairs = 500_000;

export class TermMatcher {
  private readonly cache: PairCache;

  constructor(private readonly lexicon: Lexicon = bankingLexicon()) {
    const cache = pairCaches.get(lexicon) ?? { byTerm: new Map(), pairs: 0 };
    if (cache.pairs > maxRememberedPairs) {
      cache.byTerm.clear();
      cache.pairs = 0;
    }
    pairCaches.set(lexicon, cache);
    this.cache = cache;
  }

  /** How well a set of words carries a term: itself 1, a misspelling of it or a strongly associated word less. */
  strength(term: string, words: ReadonlySet<string>): number {
    if (words.has(term)) return 1;
    let known = this.cache.byTerm.get(term);
    if (!known) {
      known = new Map<string, number>();
      this.cache.byTerm.set(term, known);
    }
    let best = 0;
    for (const word of words) {
      let value = known.get(word);
      if (value === undefined) {
        const association = this.lexicon.association(term, word);
        value = typoOf(term, word) ? typoWeight : association >= associationFloor ? associationWeight * association : 0;
        known.set(word, value);
        this.cache.pairs++;
      }
      if (value > best) best = value;
    }
    return best;
  }
}

function weightedShare(terms: string[], weight: (t: string) => number, strength: (t: string) => number): number {
  let total = 0;
  let matched = 0;
  for (const t of terms) {
    const w = weight(t);
    total += w;
    matched += w * strength(t);
  }
  return total ? matched / total : 0;
}

/** The features of each passage for one question. */
export async function relevanceFeatures(query: string, passages: Passage[]): Promise<RelevanceFeatures[]> {
  // Only FAQ questions are encoded: short, and one per entry for good, where every long passage of a manual would
  // cost the encoder milliseconds on each new question (USE reads sentences, not pages). Among passages none of which
  // is an FAQ unit, the question has nothing to be compared with: it is not encoded either.
  const faq = passages.some((p) => p.question);
  const [asked, ...meanings] = faq
    ? await encodeMeaning([
        query,
        ...passages.map((p) => p.question ?? ""),
        ...passages.map((p) => (p.question ? `${p.question} ${p.body}` : "")),
      ])
    : [];
  const closeness = (i: number) => Math.max(0, meaningSimilarity(asked ?? null, meanings[i] ?? null));
  return lexicalFeatures(
    query,
    passages.map((p, i) => ({ ...p, meaning: closeness(i), meaningEntry: closeness(passages.length + i) })),
    bankingLexicon(),
  );
}

function lexicalFeatures(query: string, passages: Read[], lexicon: Lexicon): RelevanceFeatures[] {
  const matcher = new TermMatcher(lexicon);
  const queryTerms = [...new Set(contentTerms(query))];
  const idf = (t: string) => lexicon.idf(t);
  // A word never seen in customers' queries is the most specific there is: the top of the scale.
  const rarest = lexicon.idf("");
  const queryProfile = lexicon.profile(queryTerms);
  const queryWords = new Set(queryTerms);
  return passages.map((passage) => {
    const question = passageTerms(passage.question ?? "");
    const body = passageTerms(passage.body);
    const title = passageTerms(passage.title);
    const strengths = new Map(
      queryTerms.map((t) => [
        t,
        Math.max(matcher.strength(t, question), matcher.strength(t, body), titleWeight * matcher.strength(t, title)),
      ]),
    );
    const coverage = weightedShare(queryTerms, idf, (t) => strengths.get(t)!);
    const questionCoverage = question.size ? weightedShare(queryTerms, idf, (t) => matcher.strength(t, question)) : 0;
    const questionPrecision = question.size ? weightedShare([...question], idf, (t) => matcher.strength(t, queryWords)) : 0;
    let missing = 0;
    for (const [t, strength] of strengths) if (strength < 0.5) missing = Math.max(missing, idf(t) / rarest);
    return {
      coverage,
      questionCoverage,
      questionPrecision,
      intentMatch: Math.max(
        0,
        cosine(queryProfile, passageProfile(lexicon, passage.question && question.size ? passage.question : passage.body)),
      ),
      similarity: Math.max(0, Math.min(1, passage.similarity)),
      meaning: passage.meaning,
      meaningEntry: passage.meaningEntry,
      missing: queryTerms.length ? missing : 1,
      entry: passage.entry ?? 0,
    };
  });
}

/** The log-odds that a passage answers the question, by the fitted logistic model. */
export function relevanceLogit(features: RelevanceFeatures, model: RelevanceModel): number {
  let z = model.passage.bias;
  for (const name of featureNames) z += model.passage.weights[name] * features[name];
  return z;
}

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

export interface Ranked {
  /** Each passage's log-odds of answering the question, in the passages' order. */
  logits: number[];
  features: RelevanceFeatures[];
  /** The model that ranked them, which decides on them too. */
  model: RelevanceModel;
}

/** The model for passages of a tenant with an FAQ entry classifier, or without one. */
export function modelFor(passages: Passage[]): RelevanceModel {
  return passages.some((p) => p.entry !== undefined) ? relevanceModels.withEntries : relevanceModels.withoutEntries;
}

export async function rankPassages(query: string, passages: Passage[]): Promise<Ranked> {
  const features = await relevanceFeatures(query, passages);
  const model = modelFor(passages);
  return { logits: features.map((f) => relevanceLogit(f, model)), features, model };
}

/** What the decision model reads of passage `best` among the ranked ones. */
export function decisionInput(
  ranked: Pick<Ranked, "logits" | "features">,
  best: number,
  model: RelevanceModel,
): Record<(typeof decisionInputs)[number], number> {
  const top = ranked.logits[best]!;
  // The lead is over the next passage, or over a passage that shares nothing with the question (the bias) when there
  // is no next one or it is worse: alone in a small knowledge base, a passage leads only by what it matches. It is
  // measured in probability, not log-odds, so that a weak best passage cannot lead by much among weaker ones.
  const second = Math.max(model.passage.bias, ...ranked.logits.filter((_, i) => i !== best));
  const f = ranked.features[best]!;
  return {
    top,
    lead: sigmoid(top) - sigmoid(second),
    meaning: f.meaning,
    meaningEntry: f.meaningEntry,
    coverage: f.coverage,
    questionPrecision: f.questionPrecision,
    entry: f.entry,
  };
}

/** The probability that passage `best` is the answer to the question: an answer when it reaches `model.decision.threshold`. */
export function answerProbability(ranked: Ranked, best: number): number {
  const { model } = ranked;
  const input = decisionInput(ranked, best, model);
  let z = model.decision.bias;
  for (const name of decisionInputs) z += model.decision.weights[name] * input[name];
  return sigmoid(z);
}

/** The 0..1 score a knowledge hit shows: a passage's probability on its own. */
export const passageProbability = sigmoid;
