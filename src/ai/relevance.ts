import { bankingLexicon, contentTerms, cosine, type Lexicon, passageProfile, passageTerms } from "./lexicon.js";
import weights from "./relevance-weights.json" with { type: "json" };
import { remembered } from "./remembered.js";
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
  const { question, body } = partsOf(chunk.content, chunk.title);
  return {
    question,
    body,
    title: chunk.title ?? chunk.sourceTitle,
    similarity: chunk.similarity,
    entry: chunk.entry == null ? undefined : question !== null ? chunk.entry : 0,
  };
}

// A chunk is read as a passage by the search and again by the engine, question after question: its parts are
// remembered, so that its body is one string whose hash the passages' caches have computed, not a new one each time.
const rememberedPassages = 4_096;

const partsOf = remembered(
  rememberedPassages,
  (content: string, _title: string | null) => content,
  (content, title) => {
    const lines = content.split("\n");
    const heading = title?.split(" › ").at(-1)?.trim();
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
    return { title, question: unit ? heading! : null, body: unit ? body : content };
  },
  (parts, _content, title) => parts.title === title,
);

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

/** The letters a word holds, one bit each (the others share one): an edit changes at most two of them. */
function lettersOf(word: string): number {
  let mask = 0;
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i) - 97;
    mask |= c >= 0 && c < 26 ? 1 << c : 1 << 26;
  }
  return mask;
}

function bitCount(n: number): number {
  let m = n - ((n >>> 1) & 0x55555555);
  m = (m & 0x33333333) + ((m >>> 2) & 0x33333333);
  return (Math.imul((m + (m >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) & 0xff;
}

const hasDigit = /\d/;
/** Misspellings are words of some length ("recieve", "withdrawl"): short words are too easily another word. */
const typoMinLength = 5;

/**
 * A set's words that may be misspellings, as `strength` scans them: by length, with their letters, worked out once per
 * set. `from[n]` is the first of length n or more (lengths past the last are at its end).
 */
interface Scanned {
  words: string[];
  letters: Int32Array;
  from: Uint32Array;
}

const scannedSets = new WeakMap<ReadonlySet<string>, Scanned>();

function scanned(words: ReadonlySet<string>): Scanned {
  let scan = scannedSets.get(words);
  if (!scan) {
    const list = [...words].filter((w) => w.length >= typoMinLength && !hasDigit.test(w)).sort((a, b) => a.length - b.length);
    const longest = list.at(-1)?.length ?? 0;
    const from = new Uint32Array(longest + 2);
    for (let n = 0, i = 0; n <= longest + 1; n++) {
      while (i < list.length && list[i]!.length < n) i++;
      from[n] = i;
    }
    scan = { words: list, letters: Int32Array.from(list, lettersOf), from };
    scannedSets.set(words, scan);
  }
  return scan;
}

// Terms come from what customers type: the map of them is emptied past this size rather than grow.
const maxRememberedTerms = 100_000;

/** What `strength` needs of a term, worked out once: its associated words and their values, and how it is misspelt. */
interface TermInfo {
  associates: Array<[word: string, value: number]>;
  /** The edit distance a misspelling may have; 0 for a term too short (or with a digit) to be misspelt. */
  typoLimit: number;
  letters: number;
}

const termsByLexicon = new WeakMap<Lexicon, Map<string, TermInfo>>();

/**
 * How well words carry a term: `strength` is called for every term of a question and every passage. A passage's words
 * are a remembered set (`passageTerms`, never changed), so what a scan needs of them is kept with the set; a term's
 * associated words come from the lexicon once per term (a few among its frequent words) and are looked up in the set,
 * where comparing the term with each of a passage's words was the relevance model's largest cost on new questions.
 */
export class TermMatcher {
  private readonly terms: Map<string, TermInfo>;

  constructor(private readonly lexicon: Lexicon = bankingLexicon()) {
    let terms = termsByLexicon.get(lexicon);
    if (!terms || terms.size > maxRememberedTerms) {
      terms = new Map();
      termsByLexicon.set(lexicon, terms);
    }
    this.terms = terms;
  }

  /**
   * How well a set of words carries a term: itself 1, a misspelling of it (edit distance 1, or 2 for words of eight
   * letters or more, transpositions counted as one) 0.85, a strongly associated word less.
   */
  strength(term: string, words: ReadonlySet<string>): number {
    if (words.has(term)) return 1;
    const info = this.#info(term);
    const limit = info.typoLimit;
    if (limit) {
      const { words: list, letters, from } = scanned(words);
      const last = from.length - 1;
      const end = from[Math.min(term.length + limit + 1, last)]!;
      for (let i = from[Math.min(term.length - limit, last)]!; i < end; i++) {
        if (bitCount(letters[i]! ^ info.letters) <= 2 * limit && editDistanceAtMost(term, list[i]!, limit)) return typoWeight;
      }
    }
    let best = 0;
    for (const [word, value] of info.associates) if (value > best && words.has(word)) best = value;
    return best;
  }

  #info(term: string): TermInfo {
    let info = this.terms.get(term);
    if (!info) {
      info = {
        associates: this.lexicon
          .associated(term, associationFloor)
          .map(([word, association]) => [word, associationWeight * association]),
        typoLimit: term.length < typoMinLength || hasDigit.test(term) ? 0 : term.length >= 8 ? 2 : 1,
        letters: lettersOf(term),
      };
      this.terms.set(term, info);
    }
    return info;
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
