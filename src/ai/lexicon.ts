import { readFileSync } from "node:fs";
import { parse } from "csv-parse/sync";
import { stemmer } from "stemmer";
import { squaredLength } from "./embeddings.js";
import { defaultIntents } from "./intents/defaults.js";
import { remembered } from "./remembered.js";

/**
 * What customers' words mean, learned from data we ship (src/ai/data, BANKING77, CC BY 4.0): 10,003 customer queries
 * labelled with 77 intents. Two things come out of it, replacing hand-written synonym lists:
 * - how specific a word is (its inverse document frequency over customers' queries: "card" is everywhere, "contactless" is not);
 * - what a word is about (its distribution over the intents): "cost", "charge" and "fee" all point at the fee intents,
 *   so a question and an FAQ entry about the same thing in other words have similar profiles, and two words with
 *   similar profiles are associated.
 */

const stopWords = new Set(
  [
    "a an the and or but if then so of to in on at by for with from into about as is are was were be been being am",
    "do does did doing have has had having i me my mine we us our you your yours it its this that these those there",
    "here what which who whom whose when where why how can could would should will shall may might must please",
    "tell know want wanted need like just any some get got also not no yes hi hello hey thanks thank ok okay think",
    "someone something anything way able possible still already help much many per thing really lot long take takes soon",
    "im ive id dont cant wont",
  ]
    .join(" ")
    .split(" "),
);

/** Lower-cased, accent-folded words, apostrophes dropped ("don't" and "dont" are one word to a customer typing fast). */
export function wordsOf(text: string): string[] {
  return text
    .toLowerCase()
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .replace(/['’`]/g, "")
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/** Porter's stem, and "daily", "monthly" with "day", "month": Porter keeps adverbs of time apart from their noun. */
function root(word: string): string {
  const stem = stemmer(word);
  return stem.length > 4 && stem.endsWith("li") ? stem.slice(0, -2) : stem;
}

// A knowledge base's passages and its customers' questions share a vocabulary of some tens of thousands of words, each
// stemmed again in every new passage and question (Porter's steps were a twentieth of a new question's CPU): a word's
// term is remembered. Made of what anyone may type, the map is emptied at this size rather than grow.
const maxRememberedWords = 100_000;
/** A word's term, or "" for a stop word. */
const termOfWord = new Map<string, string>();

function termOf(word: string): string {
  let term = termOfWord.get(word);
  if (term === undefined) {
    term = stopWords.has(word) ? "" : /^\d/.test(word) ? word : root(word);
    if (termOfWord.size >= maxRememberedWords) termOfWord.clear();
    termOfWord.set(word, term);
  }
  return term;
}

/** The stemmed content words of a text, in order (repeats kept). */
export function contentTerms(text: string): string[] {
  const out: string[] = [];
  for (const word of wordsOf(text)) {
    const term = termOf(word);
    if (term) out.push(term);
  }
  return out;
}

// Stemming passages again for each question was a tenth of a chat request's CPU. A few thousand passages' sets are a
// few tens of MB at most.
const rememberedTexts = 4_096;

/**
 * The distinct content terms of a passage's text (a chunk, its title, an FAQ question), remembered: the set is shared,
 * never to be changed. A customer's message is asked once; its terms come from `contentTerms`.
 */
export const passageTerms = remembered(
  rememberedTexts,
  (text: string) => text,
  (text): ReadonlySet<string> => new Set(contentTerms(text)),
);

const dataPath = new URL("./data/banking77-train.csv", import.meta.url);
// Pseudo-counts toward the overall intent distribution: a word seen twice says little about its intent.
const smoothing = 3;
// Below this many occurrences a word's profile is mostly the smoothing: no association is drawn from it.
const minCountForAssociation = 4;

export interface Lexicon {
  /** Inverse document frequency over customers' queries; words never seen are treated as rare (specific). */
  idf(term: string): number;
  /** The centred intent profile of a bag of terms (weighted by idf), L2-normalised; empty when no term is known. */
  profile(terms: Iterable<string>): Float32Array | null;
  /** -1..1: how alike two words are in what they are about (0 when either is too rare to tell). */
  association(a: string, b: string): number;
  /** The other words whose association with `term` is at least `floor` (> 0), with it. */
  associated(term: string, floor: number): Array<[word: string, association: number]>;
}

export class IntentLexicon implements Lexicon {
  private readonly documents: number;
  private readonly df = new Map<string, number>();
  private readonly profiles = new Map<string, Float32Array>();
  private readonly counts = new Map<string, number>();
  private readonly unseenIdf: number;
  /** The words seen often enough to be associated. */
  private readonly frequent: string[] = [];
  /** Their profiles' squared lengths. */
  private readonly frequentSquares: number[] = [];
  /** Their profiles, one row each, back to back: scanned for a term's associates. */
  private readonly frequentProfiles: Float32Array;

  constructor(examples: Array<{ text: string; intent: string }>) {
    const intents = [...new Set(examples.map((e) => e.intent))];
    const index = new Map(intents.map((name, i) => [name, i]));
    const byTerm = new Map<string, Float32Array>();
    const prior = new Float32Array(intents.length);
    for (const example of examples) {
      const i = index.get(example.intent)!;
      prior[i]!++;
      for (const term of new Set(contentTerms(example.text))) {
        this.df.set(term, (this.df.get(term) ?? 0) + 1);
        const row = byTerm.get(term) ?? new Float32Array(intents.length);
        byTerm.set(term, row);
        row[i]!++;
      }
    }
    this.documents = examples.length;
    for (let i = 0; i < prior.length; i++) prior[i]! /= examples.length;
    this.unseenIdf = Math.log(1 + this.documents / 0.5);
    for (const [term, row] of byTerm) {
      let total = 0;
      for (const c of row) total += c;
      this.counts.set(term, total);

      const centred = new Float32Array(row.length);
      let norm = 0;
      for (let i = 0; i < row.length; i++) {
        centred[i] = (row[i]! + smoothing * prior[i]!) / (total + smoothing) - prior[i]!;
        norm += centred[i]! ** 2;
      }
      // The raw (unnormalised) centred distribution: how far a word leans away from the average is part of what it says.
      this.profiles.set(term, centred);
      if (!norm) this.profiles.delete(term);
      else if (total >= minCountForAssociation) {
        this.frequent.push(term);
        this.frequentSquares.push(squaredLength(centred));
      }
    }
    this.frequentProfiles = new Float32Array(this.frequent.length * intents.length);
    for (const [i, word] of this.frequent.entries()) this.frequentProfiles.set(this.profiles.get(word)!, i * intents.length);
  }

  idf(term: string): number {
    const df = this.df.get(term);
    return df === undefined ? this.unseenIdf : Math.log(1 + this.documents / (df + 0.5));
  }

  profile(terms: Iterable<string>): Float32Array | null {
    let sum: Float32Array | null = null;
    for (const term of terms) {
      const p = this.profiles.get(term);
      if (!p) continue;
      sum ??= new Float32Array(p.length);
      const w = this.idf(term);
      for (let i = 0; i < p.length; i++) sum[i]! += w * p[i]!;
    }
    if (!sum) return null;
    const norm = Math.sqrt(squaredLength(sum));
    if (!norm) return null;
    for (let i = 0; i < sum.length; i++) sum[i]! /= norm;
    return sum;
  }

  association(a: string, b: string): number {
    if (a === b) return 1;
    if ((this.counts.get(a) ?? 0) < minCountForAssociation || (this.counts.get(b) ?? 0) < minCountForAssociation) return 0;
    return cosine(this.profiles.get(a)!, this.profiles.get(b)!);
  }

  associated(term: string, floor: number): Array<[word: string, association: number]> {
    const profile = this.profiles.get(term);
    if (!profile || (this.counts.get(term) ?? 0) < minCountForAssociation) return [];
    const squares = squaredLength(profile);
    const out: Array<[string, number]> = [];
    const rows = this.frequentProfiles;
    for (const [i, word] of this.frequent.entries()) {
      if (word === term) continue;
      // `cosine` with each frequent word's squared length summed once, not for each term: the same figures.
      let dot = 0;
      for (let d = 0, at = i * profile.length; d < profile.length; d++, at++) dot += profile[d]! * rows[at]!;
      const otherSquares = this.frequentSquares[i]!;
      const association = squares && otherSquares ? dot / Math.sqrt(squares * otherSquares) : 0;
      if (association >= floor) out.push([word, association]);
    }
    return out;
  }
}

export function cosine(a: Float32Array | null, b: Float32Array | null): number {
  if (!a || !b) return 0;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

const passageProfiles = new WeakMap<Lexicon, (text: string) => Float32Array | null>();

/**
 * The intent profile of a passage's text (its distinct terms), remembered per lexicon as its terms are: the relevance
 * features compare it with each question's. Shared, never to be changed.
 */
export function passageProfile(lexicon: Lexicon, text: string): Float32Array | null {
  let profileOf = passageProfiles.get(lexicon);
  if (!profileOf) {
    profileOf = remembered(
      rememberedTexts,
      (passage: string) => passage,
      (passage) => lexicon.profile(passageTerms(passage)),
    );
    passageProfiles.set(lexicon, profileOf);
  }
  return profileOf(text);
}

let shipped: IntentLexicon | undefined;

/** Learned once per process from the shipped data (about a second); `warmLexicon` at start keeps it off a request. */
export function bankingLexicon(): Lexicon {
  if (!shipped) {
    const rows: string[][] = parse(readFileSync(dataPath), { from_line: 2, relax_column_count: true });
    // The built-in intents' examples cover what BANKING77 (a card-and-transfer bank) does not: branches, loans, statements.
    const builtIn = defaultIntents.flatMap((i) => i.examples.map((text) => ({ text, intent: `builtin:${i.name}` })));
    shipped = new IntentLexicon([...rows.map(([text, intent]) => ({ text: text ?? "", intent: intent ?? "" })), ...builtIn]);
  }
  return shipped;
}
