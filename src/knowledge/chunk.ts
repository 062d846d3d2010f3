import { Tiktoken } from "js-tiktoken/lite";
import cl100kBase from "js-tiktoken/ranks/cl100k_base";
import { type FaqSplit, faqUnits, unitText } from "./faq.js";

export interface TextChunk {
  text: string;
  tokens: number;
  position: number;
  heading: string | null;
}

interface ChunkOptions {
  maxTokens?: number;
  overlap?: number;
}

// Building the rank map takes a few hundred milliseconds: the service builds it at start (warmTokenizer), where the
// first message's answer, which counts the conversation's tokens, would wait for it.
let encoder: Tiktoken | undefined;

function tokenizer(): Tiktoken {
  encoder ??= new Tiktoken(cl100kBase);
  return encoder;
}

/** Builds the tokenizer now (0.3 s) rather than in the first request that counts tokens. */
export function warmTokenizer(): void {
  tokenizer();
}

// The tokenizer's own pre-tokenisation; encoding piece by piece gives exactly its tokens, and lets us remember pieces.
const piecePattern = new RegExp(cl100kBase.pat_str, "gu");
// js-tiktoken merges the bytes of one piece in quadratic time, heavily so for CJK, where a piece is a whole clause.
// The chunker encodes each piece two or three times (paragraph, sentence, chunk), so remembering them pays.
const pieceCache = new Map<string, number[]>();
const pieceCacheSize = 50_000;
// A 50,000-letter run (a PDF that lost its spaces) would take minutes as one piece; cut into slices it stays linear,
// and its count grows by at most a token per cut. Ordinary words are far shorter and counted exactly.
const longestPiece = 32;

function encodePiece(piece: string): number[] {
  if (piece.length <= longestPiece) return encodeCached(piece);
  return sliceCodePoints(piece, longestPiece).flatMap(encodeCached);
}

function encodeCached(piece: string): number[] {
  let tokens = pieceCache.get(piece);
  if (!tokens) {
    // Special-token strings such as "<|endoftext|>" in a tenant's text are ordinary text, not control tokens (and must not throw).
    tokens = tokenizer().encode(piece, [], []);
    if (pieceCache.size >= pieceCacheSize) pieceCache.clear();
    pieceCache.set(piece, tokens);
  }
  return tokens;
}

function sliceCodePoints(text: string, size: number): string[] {
  const chars = Array.from(text);
  const slices: string[] = [];
  for (let i = 0; i < chars.length; i += size) slices.push(chars.slice(i, i + size).join(""));
  return slices;
}

function encode(text: string): number[] {
  const tokens: number[] = [];
  for (const [piece] of text.matchAll(piecePattern)) {
    for (const token of encodePiece(piece)) tokens.push(token);
  }
  return tokens;
}

function decode(tokens: number[]): string {
  return tokenizer().decode(tokens);
}

export function countTokens(text: string): number {
  return text === "" ? 0 : encode(text).length;
}

/** Some text, with the whitespace that joins it to the text before: "\n\n", "\n", " " or nothing. */
interface Piece {
  text: string;
  separator: string;
}

/** A piece of a section small enough to fit a chunk on its own. */
interface Unit extends Piece {
  tokens: number;
}

interface Section {
  heading: string | null;
  paragraphs: string[];
}

const headingLine = /^#{1,6}\s+(.+?)(?:\s+#+)?$/;

function normalise(text: string): string[] {
  return text
    .replace(/\r\n?/g, "\n")
    .replace(/[\t\f\v\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]/g, " ")
    .replace(/[\u200b\ufeff]/g, "")
    .split("\n")
    .map((line) => line.replace(/ {2,}/g, " ").trim());
}

function toSections(lines: string[]): Section[] {
  const sections: Section[] = [];
  let current: Section = { heading: null, paragraphs: [] };
  let hasBody = false;
  let paragraph: string[] = [];
  const endParagraph = () => {
    if (paragraph.length > 0) current.paragraphs.push(paragraph.join("\n"));
    hasBody ||= paragraph.length > 0;
    paragraph = [];
  };
  for (const line of lines) {
    const heading = headingLine.exec(line)?.[1]?.trim();
    if (heading) {
      endParagraph();
      if (hasBody) sections.push(current);
      // A heading with no body of its own (a chapter title right before a section title) stays as text of the next section.
      current = { heading, paragraphs: [...(hasBody ? [] : current.paragraphs), heading] };
      hasBody = false;
    } else if (line === "") {
      endParagraph();
    } else {
      paragraph.push(line);
    }
  }
  endParagraph();
  // A heading at the very end, with nothing under it, is dropped unless it is all the text there is.
  if (hasBody || sections.length === 0) sections.push(current);
  return sections.filter((section) => section.paragraphs.length > 0);
}

const lineBreak = /(\n)/;
// CJK full stops end a sentence with no space after them.
const sentenceEnd = /((?<=[.!?…]["'”’)\]]*)\s+|(?<=[。！？])\s*)/;

/** Splits on a pattern with one capturing group, remembering whether each piece followed a space, a line break or nothing. */
function splitKeepingGaps(text: string, pattern: RegExp, separator: string): Piece[] {
  const parts = text.split(pattern);
  const pieces: Piece[] = [];
  for (let i = 0; i < parts.length; i += 2) {
    const part = parts[i];
    if (!part) continue;
    const gap = pieces.length === 0 ? null : (parts[i - 1] ?? "");
    pieces.push({ text: part, separator: gap === null ? separator : gap === "" ? "" : gap.includes("\n") ? "\n" : " " });
  }
  return pieces;
}

/** Splits text at the finest boundary that makes every piece fit: lines, then sentences, then token windows. */
function toUnits(piece: Piece, limit: number, level = 0): Unit[] {
  const tokens = countTokens(piece.text);
  if (tokens <= limit) return [{ ...piece, tokens }];
  const splitters = [lineBreak, sentenceEnd];
  for (let next = level; next < splitters.length; next++) {
    const parts = splitKeepingGaps(piece.text, splitters[next]!, piece.separator);
    if (parts.length > 1) return parts.flatMap((part) => toUnits(part, limit, next + 1));
  }
  return tokenWindows(piece.text, limit).map((window, i) => ({ ...window, separator: i === 0 ? piece.separator : " " }));
}

/** The last resort for text with no sentence boundary: windows of at most `limit` tokens, cut before a word where possible. */
function tokenWindows(text: string, limit: number): Array<{ text: string; tokens: number }> {
  const tokens = encode(text);
  const windows: Array<{ text: string; tokens: number }> = [];
  let start = 0;
  while (start < tokens.length) {
    let end = Math.min(start + limit, tokens.length);
    if (end < tokens.length) end = wordStartBefore(tokens, start + Math.ceil(limit / 2), end);
    let piece = decode(tokens.slice(start, end)).trim();
    let pieceTokens = countTokens(piece);
    // Re-encoding a decoded window rarely gives more tokens, and a cut inside a multi-byte character gives U+FFFD.
    while (end > start + 1 && (pieceTokens > limit || piece.endsWith("\uFFFD"))) {
      end -= Math.max(1, pieceTokens - limit);
      piece = decode(tokens.slice(start, end)).trim();
      pieceTokens = countTokens(piece);
    }
    if (piece !== "") windows.push({ text: piece, tokens: pieceTokens });
    start = end;
  }
  return windows;
}

function startsWord(token: number): boolean {
  return /^\s/.test(decode([token]));
}

function wordStartBefore(tokens: number[], from: number, end: number): number {
  for (let i = end; i > from; i--) {
    if (startsWord(tokens[i]!)) return i;
  }
  return end;
}

/** About `overlap` tokens from the end of a chunk, starting at a word so the next chunk does not open mid-word. */
function tailOf(tokens: number[], overlap: number): Unit | null {
  if (overlap <= 0 || tokens.length <= overlap) return null;
  const tail = tokens.slice(-overlap);
  const wordStart = tail.findIndex((token, i) => i > 0 && startsWord(token));
  const text = decode(wordStart > 0 && wordStart < overlap / 2 ? tail.slice(wordStart) : tail)
    .replace(/^\uFFFD+/, "")
    .trim();
  return text ? { text, tokens: countTokens(text), separator: "" } : null;
}

function join(parts: Piece[]): string {
  return parts.map((part, i) => (i === 0 ? part.text : part.separator + part.text)).join("");
}

interface Packed {
  text: string;
  tokens: number[];
  units: number;
}

/** Greedy packing of units into chunks; each chunk after the first repeats the tail of the one before. */
function packSection(units: Unit[], maxTokens: number, overlap: number): Array<{ text: string; tokens: number }> {
  const chunks: Array<{ text: string; tokens: number }> = [];
  let carry: Unit | null = null;
  let next = 0;
  while (next < units.length) {
    const taken: Unit[] = carry ? [carry] : [];
    let estimate = carry?.tokens ?? 0;
    for (let i = next; i < units.length; i++) {
      const unit = units[i]!;
      // One token per separator: an upper bound in practice, checked below against the exact count.
      const cost = unit.tokens + (taken.length > 0 ? 1 : 0);
      if (taken.length > 0 && estimate + cost > maxTokens) break;
      taken.push(unit);
      estimate += cost;
    }
    const chunk = exactFit(taken, carry !== null, maxTokens);
    if (!chunk) {
      carry = null;
      continue;
    }
    chunks.push({ text: chunk.text, tokens: chunk.tokens.length });
    next += chunk.units - (carry ? 1 : 0);
    carry = tailOf(chunk.tokens, overlap);
  }
  return chunks;
}

/** The longest prefix of `taken` within `maxTokens`, or null when the carried overlap leaves no room for a single unit. */
function exactFit(taken: Unit[], hasCarry: boolean, maxTokens: number): Packed | null {
  const minimum = hasCarry ? 2 : 1;
  if (taken.length < minimum) return null;
  let units = taken.length;
  let text = join(taken);
  let tokens = encode(text);
  while (tokens.length > maxTokens && units > minimum) {
    units--;
    text = join(taken.slice(0, units));
    tokens = encode(text);
  }
  // A unit alone always fits (units are cut to less than maxTokens), so only a carried overlap can leave us over.
  return tokens.length > maxTokens ? null : { text, tokens, units };
}

/**
 * Splits text into chunks of at most `maxTokens` cl100k tokens. Headings (`#` lines) are hard boundaries and
 * are carried on every chunk below them; inside a section, paragraphs, lines and sentences are kept whole
 * where they fit, and consecutive chunks share about `overlap` tokens.
 */
export function chunkText(text: string, options: ChunkOptions = {}): TextChunk[] {
  const maxTokens = Math.max(8, options.maxTokens ?? 512);
  const overlap = Math.min(Math.max(0, options.overlap ?? 64), Math.floor(maxTokens / 2));
  // Units leave room for the overlap and one separator, so a chunk always has space for its next unit.
  const limit = maxTokens - overlap - 1;
  const chunks: TextChunk[] = [];
  const pack = (paragraphs: string[], heading: string | null) => {
    const units = paragraphs.flatMap((text, i) => toUnits({ text, separator: i === 0 ? "" : "\n\n" }, limit));
    for (const chunk of packSection(units, maxTokens, overlap)) chunks.push({ ...chunk, position: chunks.length, heading });
  };
  for (const section of toSections(normalise(text))) {
    const faq = sectionFaq(section);
    if (!faq) {
      pack(section.paragraphs, section.heading);
      continue;
    }
    if (faq.rest.length) pack(section.heading ? [section.heading, ...faq.rest] : faq.rest, section.heading);
    for (const unit of faq.units) {
      pack([unitText(unit)], section.heading ? `${section.heading} › ${unit.question}` : unit.question);
    }
  }
  return chunks;
}

/** A section's FAQ units; a section under a question heading is one answer already, whatever lines it holds. */
function sectionFaq(section: Section): FaqSplit | null {
  if (section.heading?.endsWith("?")) return null;
  const body = section.heading && section.paragraphs[0] === section.heading ? section.paragraphs.slice(1) : section.paragraphs;
  return faqUnits(body.join("\n\n").split("\n"));
}
