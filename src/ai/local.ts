import { countTokens } from "../knowledge/chunk.js";
import { type Answer, type AnswerInput, abortError, type ContextChunk, type Engine, sourceOf } from "./engine.js";
import { contentTerms, passageTerms } from "./lexicon.js";
import {
  answerProbability,
  type Passage,
  passageOf,
  passageProbability,
  type Ranked,
  rankPassages,
  TermMatcher,
} from "./relevance.js";
import { RecentlyUsed, remembered } from "./remembered.js";

export interface LocalEngineOptions {
  /** Chunks less similar than this are noise from the embedder and are not read at all. */
  minSimilarity?: number;
  /** The share of the question's (IDF-weighted) terms the best sentence must exceed to be an answer. */
  minCoverage?: number;
}

export const dontKnow = "I'm not sure about that. Would you like me to connect you with one of our team?";

// When it declines, the engine lists the FAQ questions the customer may have meant: on the development banks the right
// one is among three for 65-86 % of the answerable questions it declines (test/bench/README.md, answers). Below this
// probability an entry is too unlike the question to offer.
const suggestionFloor = 0.3;
const maxSuggestions = 3;

/**
 * "I'm not sure", the FAQ questions the customer may have meant, numbered (a reply of just the number asks it:
 * src/conversations/offer.ts, `pickedSuggestion`), and the offer of a person.
 */
export function declineWith(suggestions: string[], channel = "api"): string {
  if (!suggestions.length) return dontKnow;
  const offer = "would you like me to connect you with one of our team?";
  if (channel === "voice") {
    // Spoken, a list's markers are dropped (src/channels/format.ts): each number is said as a word. The caller's
    // answer comes back as words too, which the choice reads (src/conversations/offer.ts, `chosenNumber`).
    const said = suggestions.map((q, i) => `Number ${i + 1}: ${q}`).join(" ");
    return `I'm not sure about that. Did you mean one of these? ${said} Say its number, or ${offer}`;
  }
  const listed = suggestions.map((q, i) => `${i + 1}. ${q}`).join("\n");
  return `I'm not sure about that. Did you mean one of these? Reply with its number.\n${listed}\nOr ${offer}`;
}

// Text addressed to the assistant rather than to a customer: never an answer, whatever it matches.
const instructionLike =
  /\b(?:ignore|disregard|forget|override)\b.{0,40}\b(?:instructions?|prompts?|rules?)\b|\bsystem prompt\b|\byou are now\b|\b(?:reveal|print|show)\b.{0,30}\b(?:instructions?|prompts?)\b/i;

interface Sentence {
  chunk: number;
  index: number;
  text: string;
  terms: ReadonlySet<string>;
  /** Its terms and its FAQ question's: what the context's document frequencies count. */
  vocabulary: ReadonlySet<string>;
  /** Terms of the titles and heading the sentence sits under, with how much a match there counts. */
  frame: ReadonlyMap<string, number>;
  /** Terms of the FAQ question the sentence answers (empty outside a Q&A). */
  question: ReadonlySet<string>;
  candidate: boolean;
  /** Sentences of one answer share it: the run after a heading, a question or a blank line. */
  block: number;
}

const sentenceEnd = /(?<=[.!?])\s+(?=["'([]?[\p{Lu}\p{N}])/u;
const questionPrefix = /^(?:Q|Question)\s*[:.)-]\s*/i;
const answerPrefix = /^(?:A|Answer)\s*[:.)-]\s*/i;
const bullet = /^\s*(?:[-*•]|\d+[.)])\s+/;

/** "Lost or stolen cards": a short unpunctuated line (the chunker keeps headings as plain lines) names a topic, it answers nothing. */
function headingOf(line: string): string | null {
  const markdown = /^#{1,6}\s+(.+)$/.exec(line)?.[1];
  if (markdown) return markdown;
  const short = line.split(/\s+/).length <= 8 && !/[.!?:;,)\d]$/.test(line) && !/[:\d]/.test(line) && !bullet.test(line);
  return short ? line : null;
}

/** A chunk's sentences, with what they are scored by: its text and titles alone decide them. */
function splitChunk(chunk: ContextChunk): Array<Omit<Sentence, "chunk">> {
  const sentences: Array<Omit<Sentence, "chunk">> = [];
  const base = new Map<string, number>();
  for (const t of passageTerms(chunk.sourceTitle)) base.set(t, 0.4);
  for (const t of passageTerms(chunk.title ?? "")) base.set(t, 0.6);
  let frame = new Map(base);
  let question: ReadonlySet<string> = new Set<string>();
  let block = 0;
  for (const line of chunk.content.split("\n").map((l) => l.trim())) {
    const heading = line ? headingOf(line) : null;
    if (!line || heading) block++;
    if (heading) {
      frame = new Map(base);
      for (const t of passageTerms(heading)) frame.set(t, 0.6);
      question = new Set();
      continue;
    }
    for (const raw of line.split(sentenceEnd)) {
      if (!raw) continue;
      const isQuestion = raw.endsWith("?") || questionPrefix.test(raw);
      const text = raw.replace(isQuestion ? questionPrefix : answerPrefix, "");
      const own: ReadonlySet<string> = new Set(contentTerms(text));
      if (isQuestion) {
        question = own;
        block++;
        continue;
      }
      const candidate = own.size > 0 && !instructionLike.test(text);
      const vocabulary = question.size ? new Set([...own, ...question]) : own;
      sentences.push({ index: sentences.length, text, terms: own, vocabulary, frame, question, candidate, block });
    }
  }
  return sentences;
}

// A chunk's split held about 10 kB here (chunks of 900 to 1,100 characters): a thousand chunks, the pools of some fifty
// questions, hold about 10 MB.
const rememberedChunks = 1_024;

/** The same chunks come back question after question: their split is remembered, as a passage's terms are. */
const splitOf = remembered(
  rememberedChunks,
  (chunk: ContextChunk) => chunk.content,
  (chunk): { sourceTitle: string; title: string | null; sentences: ReadonlyArray<Readonly<Omit<Sentence, "chunk">>> } => ({
    sourceTitle: chunk.sourceTitle,
    title: chunk.title,
    sentences: splitChunk(chunk),
  }),
  (split, chunk) => split.sourceTitle === chunk.sourceTitle && split.title === chunk.title,
);

type Match = (term: string) => number;

/** IDF-weighted shares of the question's terms, over the sentences of the context. */
function weigher(query: Set<string>, sentences: Sentence[]) {
  const df = new Map<string, number>();
  for (const s of sentences) for (const t of s.vocabulary) df.set(t, (df.get(t) ?? 0) + 1);
  const idf = (t: string) => Math.log(1 + (sentences.length + 1) / ((df.get(t) ?? 0) + 0.5));
  const present = [...query].filter((t) => df.has(t));
  // A word the context never uses ("mortgage") weighs like its rarest word: strong enough to sink a question
  // about something else, not so strong that one filler word ("debit card") sinks a good match.
  const absent = present.length ? Math.max(...present.map(idf)) : 1;
  const weight = (t: string) => (df.has(t) ? idf(t) : absent);
  // The question's terms are weighed for every sentence: once here.
  const queryWeights = new Map([...query].map((t) => [t, weight(t)]));
  return (match: Match, over: Iterable<string> = query) => {
    let matched = 0;
    let total = 0;
    for (const t of over) {
      const w = queryWeights.get(t) ?? weight(t);
      total += w;
      matched += w * match(t);
    }
    return total ? matched / total : 0;
  };
}

interface Scored extends Sentence {
  direct: number;
  coverage: number;
  score: number;
}

/** A term is covered by the sentence itself (its words, their misspellings, associated words), its FAQ question, or its heading. */
const covers = (matcher: TermMatcher, s: Sentence) => (t: string) =>
  Math.max(matcher.strength(t, s.terms), 0.9 * matcher.strength(t, s.question), s.frame.get(t) ?? 0);

function score(query: Set<string>, sentences: Sentence[], similarity: (s: Sentence) => number, matcher: TermMatcher): Scored[] {
  const share = weigher(query, sentences);
  return sentences.map((s) => {
    const direct = share((t) => (s.terms.has(t) ? 1 : 0));
    const coverage = share(covers(matcher, s));
    // An FAQ question that says what the customer asked is the strongest sign its answer is the one.
    const asked = s.question.size
      ? share((t) => (s.question.has(t) ? 1 : 0)) * ([...s.question].filter((t) => query.has(t)).length / s.question.size)
      : 0;
    return { ...s, direct, coverage, score: 0.6 * coverage + 0.2 * asked + 0.2 * similarity(s) };
  });
}

/** The best sentence, a sentence of another chunk for what it leaves out, then contiguous sentences of the same answer. */
function select(scored: Scored[], query: Set<string>, minCoverage: number, matcher: TermMatcher): Scored[] {
  const ranked = scored.filter((s) => s.candidate).sort((a, b) => b.score - a.score || a.chunk - b.chunk || a.index - b.index);
  const best = ranked[0];
  // One shared rare word is a coincidence ("close my account" / "branches are closed"): an answer matches two of the question's words.
  const matches = (s: Sentence, over: string[]) => over.filter((t) => covers(matcher, s)(t) >= 0.6).length;
  if (!best || best.coverage <= minCoverage || matches(best, [...query]) < Math.min(2, query.size)) return [];
  const missing = [...query].filter((t) => covers(matcher, best)(t) < 0.6);
  const share = weigher(query, scored);
  // A second part of the question, not a stray word: the extra must cover most of what is missing and be a fair match on its own.
  const extra = ranked.find(
    (s) =>
      s.chunk !== best.chunk &&
      s.coverage >= best.coverage / 2 &&
      matches(s, missing) >= Math.min(2, missing.length) &&
      share(covers(matcher, s), missing) >= 0.5,
  );
  const picked = [best];
  const limit = extra ? 2 : 3;
  const sameChunk = scored.filter((s) => s.chunk === best.chunk);
  const near = (s: Scored | undefined) =>
    s?.candidate && s.block === best.block && (s.question.size > 0 || (s.direct > 0 && s.direct >= best.direct * 0.5))
      ? s
      : undefined;
  // Forward first: an answer goes on after its best sentence more often than it starts before it.
  let [first, last] = [best.index, best.index];
  while (picked.length < limit) {
    const after = near(sameChunk[last + 1]);
    const before = after ? undefined : near(sameChunk[first - 1]);
    if (after) last++;
    else if (before) first--;
    else break;
    picked.push((after ?? before)!);
  }
  picked.sort((a, b) => a.index - b.index);
  return extra ? [...picked, extra] : picked;
}

function plain(text: string): string {
  return text
    .replace(/\[([^\]]+)\]\(([^)]+)\)/g, "$1 ($2)")
    .replace(/(\*\*|__|`)/g, "")
    .replace(bullet, "");
}

/** Drops trailing sentences (then words) until the answer fits the channel's cap. */
function fitToCap(sentences: string[], citation: string, maxTokens: number): string {
  const parts = [...sentences];
  const compose = () => `${parts.join(" ")} ${citation}`;
  while (parts.length > 1 && countTokens(compose()) > maxTokens) parts.pop();
  while (countTokens(compose()) > maxTokens && parts[0]!.includes(" ")) {
    parts[0] = `${parts[0]!.replace(/\s+\S+$/, "").replace(/…$/, "")}…`;
  }
  return compose();
}

function wordGroups(text: string, size = 4): string[] {
  const words = text.match(/\S+\s*/g) ?? [];
  const groups: string[] = [];
  for (let i = 0; i < words.length; i += size) groups.push(words.slice(i, i + size).join(""));
  return groups;
}

/** An FAQ entry the engine may answer with or offer: never one whose text speaks to the assistant. */
const faqUnit = (passage: Passage) => passage.question !== null && !instructionLike.test(passage.body);

/**
 * No answer: the FAQ questions of the context likeliest to be what the customer meant, best first, as many as the
 * channel's cap lets the reply hold, and the offer of a person.
 */
function decline(input: AnswerInput, passages: Passage[], ranked: Ranked): Answer {
  const likely = passages
    .map((passage, i) => ({ passage, logit: ranked.logits[i]! }))
    .filter(({ passage, logit }) => faqUnit(passage) && passageProbability(logit) >= suggestionFloor)
    .sort((a, b) => b.logit - a.logit)
    .map(({ passage }) => (input.style.plainText ? plain(passage.question!) : passage.question!));
  const suggestions = input.offerChoices === false ? [] : [...new Set(likely)].slice(0, maxSuggestions);
  const declined = () => declineWith(suggestions, input.style.channel);
  while (suggestions.length && countTokens(declined()) > input.style.maxTokens) suggestions.pop();
  const text = declined();
  return { text, tokensUsed: countTokens(text), grounded: false, sources: [], ...(suggestions.length ? { suggestions } : {}) };
}

/** An answer shared by the questions that get it: any change would reach the others. */
function freezeAnswer(answer: Answer): Answer {
  for (const source of answer.sources) Object.freeze(source);
  Object.freeze(answer.sources);
  if (answer.suggestions) Object.freeze(answer.suggestions);
  return Object.freeze(answer);
}

/**
 * The offline engine (DESIGN §4): extractive, not generative. It quotes the context's sentences that best match
 * the question, with their source, and says it does not know when nothing matches well enough. It follows no
 * text in the context, so there is nothing for an injected instruction to steer, and it has no prompt to reveal.
 */
export class LocalEngine implements Engine {
  readonly name = "local-extractive";
  /** Answers composed by context (src/pipeline/retriever.ts gives a remembered search's the same array), then question. */
  readonly #answers = new WeakMap<readonly ContextChunk[], RecentlyUsed<Answer>>();
  private readonly minSimilarity: number;
  private readonly minCoverage: number;

  constructor(options: LocalEngineOptions = {}) {
    // A short question's cosine to a long chunk is small even when the chunk is relevant (more so with the offline
    // hashing embedder): the floor only drops noise, the lexical coverage decides.
    this.minSimilarity = options.minSimilarity ?? 0.03;
    this.minCoverage = options.minCoverage ?? 0.5;
  }

  async answer(input: AnswerInput, onDelta?: (text: string) => void): Promise<Answer> {
    if (input.signal?.aborted) throw abortError();
    const answer = await this.remembered(input);
    for (const group of wordGroups(answer.text)) {
      // Yielding between groups lets a stream flush each one and an abort land between them.
      await new Promise((resolve) => setImmediate(resolve));
      if (input.signal?.aborted) throw abortError();
      onDelta?.(group);
    }
    return answer;
  }

  /**
   * The answer is the same for the same question, context, channel style and choice of offers (the engine reads
   * nothing else): a question asked again of a remembered search (src/knowledge/remembered-searches.ts) comes with
   * the same context, the same array, and gets the answer composed the first time. A follow-up's, read with the
   * question before it, is composed each time.
   */
  private async remembered(input: AnswerInput): Promise<Answer> {
    if (input.followUp) return this.compute(input);
    let known = this.#answers.get(input.context);
    if (!known) {
      known = new RecentlyUsed(8);
      this.#answers.set(input.context, known);
    }
    const { channel, maxTokens, plainText } = input.style;
    const key = `${channel}\n${maxTokens}\n${plainText}\n${input.offerChoices !== false}\n${input.message}`;
    const answer = known.get(key);
    if (answer) return answer;
    const computed = freezeAnswer(await this.compute(input));
    known.set(key, computed);
    return computed;
  }

  private async compute(input: AnswerInput): Promise<Answer> {
    const passages = input.context.map(passageOf);
    const ranked = await rankPassages(input.message, passages);
    // A follow-up that refers back ("is it free?") is read with the question it leans on first: alone, "it" could be
    // anything. One that only carries on ("and how do I reset my PIN?") is read so only when it is not answered alone.
    const followUp = input.followUp;
    const together = async () =>
      followUp ? this.grounded({ ...input, message: followUp.question, context: followUp.context }) : null;
    return (
      (followUp?.first && (await together())) ||
      this.groundedBy(input, passages, ranked) ||
      (followUp && !followUp.first && (await together())) ||
      decline(input, passages, ranked)
    );
  }

  /** The answer the context grounds, or null. */
  private async grounded(input: AnswerInput): Promise<Answer | null> {
    const passages = input.context.map(passageOf);
    return this.groundedBy(input, passages, await rankPassages(input.message, passages));
  }

  private groundedBy(input: AnswerInput, passages: Passage[], ranked: Ranked): Answer | null {
    return this.answerUnit(input, passages, ranked) ?? this.answerExtract(input);
  }

  /** The FAQ entry that answers the question, whole: its conditions and exceptions are part of the answer. */
  private answerUnit(input: AnswerInput, passages: Passage[], ranked: Ranked): Answer | null {
    const scores = ranked.logits;
    let best = -1;
    for (const [i, passage] of passages.entries()) {
      if (faqUnit(passage) && (best < 0 || scores[i]! > scores[best]!)) best = i;
    }
    if (best < 0 || scores[best]! < Math.max(...scores)) return null;
    if (answerProbability(ranked, best) < ranked.model.decision.threshold) return null;
    const chunk = input.context[best]!;
    const body = passages[best]!.body;
    const lines = body
      .split("\n")
      .filter(Boolean)
      .map((line) => (input.style.plainText ? plain(line) : line));
    const text = fitToCap(lines, `(Source: ${chunk.sourceTitle})`, input.style.maxTokens);
    return { text, tokensUsed: countTokens(text), grounded: true, sources: [sourceOf(chunk)] };
  }

  /** From ordinary text: the sentences that best match the question. */
  private answerExtract(input: AnswerInput): Answer | null {
    const picked = this.extract(input);
    if (!picked.length) return null;
    const chunks = [...new Set(picked.map((s) => s.chunk))].map((i) => input.context[i]!);
    return this.compose(input, picked, chunks);
  }

  private extract(input: AnswerInput): Scored[] {
    const query = new Set(contentTerms(input.message));
    if (!query.size) return [];
    const sentences: Sentence[] = [];
    input.context.forEach((chunk, i) => {
      // FAQ units are answered whole or not at all (answerUnit): a sentence of one is never an answer on its own.
      if (chunk.similarity >= this.minSimilarity && !passageOf(chunk).question)
        for (const s of splitOf(chunk).sentences) sentences.push({ ...s, chunk: i });
    });
    const similarity = (s: Sentence) => Math.min(1, Math.max(0, input.context[s.chunk]!.similarity));
    const matcher = new TermMatcher();
    const scored = score(query, sentences, similarity, matcher);
    return select(scored, query, this.minCoverage, matcher);
  }

  private compose(input: AnswerInput, picked: Scored[], chunks: ContextChunk[]): Answer {
    const sentences = picked.map((s) => (input.style.plainText ? plain(s.text) : s.text));
    const titles = [...new Set(chunks.map((c) => c.sourceTitle))];
    const citation = `(${titles.length > 1 ? "Sources" : "Source"}: ${titles.join("; ")})`;
    const text = fitToCap(sentences, citation, input.style.maxTokens);
    const sources = chunks
      .map(sourceOf)
      .filter((s, i, all) => all.findIndex((o) => o.sourceId === s.sourceId && o.page === s.page && o.url === s.url) === i);
    return { text, tokensUsed: countTokens(text), grounded: true, sources };
  }
}
