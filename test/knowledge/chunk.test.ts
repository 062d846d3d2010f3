import { describe, expect, it } from "vitest";
import { chunkText, countTokens, type TextChunk } from "../../src/knowledge/chunk.js";

const vocabulary = (
  "account balance branch card cheque credit debit deposit fee interest loan mortgage overdraft payment rate " +
  "savings statement transfer withdrawal customer online mobile app limit daily monthly annual charge refund " +
  "dispute fraud alert security password verification identity address document request approval"
).split(" ");

/** Deterministic bank-like prose, so the numbers in these tests do not move between runs. */
function prose(words: number, seed = 1, sentenceLength = 14): string {
  let state = seed;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state >>> 8;
  };
  const out: string[] = [];
  for (let i = 0; i < words; i++) {
    const word = vocabulary[next() % vocabulary.length]!;
    const end = (i + 1) % sentenceLength === 0;
    out.push(i % sentenceLength === 0 ? word[0]!.toUpperCase() + word.slice(1) : word);
    if (end) out[out.length - 1] += ".";
  }
  return out.join(" ");
}

/** The longest end of `previous` that `next` starts with: the text the two chunks share. */
function sharedText(previous: string, next: string): string {
  for (let length = Math.min(previous.length, next.length); length > 0; length--) {
    if (previous.endsWith(next.slice(0, length))) return next.slice(0, length);
  }
  return "";
}

const maxTokensOf = (chunks: TextChunk[]) => Math.max(...chunks.map((chunk) => chunk.tokens));

describe("countTokens", () => {
  it("counts cl100k_base tokens", () => {
    expect(countTokens("")).toBe(0);
    expect(countTokens("hello world")).toBe(2);
    expect(countTokens("Parley answers questions about savings accounts.")).toBe(8);
  });

  it("treats special-token text in a document as plain text", () => {
    expect(countTokens("before <|endoftext|> after")).toBeGreaterThan(3);
  });
});

describe("chunkText", () => {
  it("returns no chunks for empty or blank text", () => {
    expect(chunkText("")).toEqual([]);
    expect(chunkText(" \n\n\t \r\n ")).toEqual([]);
  });

  it("keeps short text in one chunk, with whitespace normalised", () => {
    const chunks = chunkText("  Our   branches open\tat 9am.\r\n\r\n\r\n\r\nClosed on  Sundays.  ");
    expect(chunks).toEqual([{ text: "Our branches open at 9am.\n\nClosed on Sundays.", tokens: 12, position: 0, heading: null }]);
    expect(chunks[0]!.tokens).toBe(countTokens(chunks[0]!.text));
  });

  it("makes chunks of about 512 tokens and never one over 512", () => {
    const text = Array.from({ length: 40 }, (_, i) => prose(120, i + 1)).join("\n\n");
    const chunks = chunkText(text);
    expect(chunks.length).toBeGreaterThan(8);
    expect(maxTokensOf(chunks)).toBeLessThanOrEqual(512);
    // Packing whole paragraphs leaves some room, but every chunk but the last is well filled.
    for (const chunk of chunks.slice(0, -1)) expect(chunk.tokens).toBeGreaterThan(350);
    for (const chunk of chunks) expect(chunk.tokens).toBe(countTokens(chunk.text));
  });

  it("numbers chunks 0..n-1 in reading order", () => {
    const chunks = chunkText(prose(3000));
    expect(chunks.map((chunk) => chunk.position)).toEqual(chunks.map((_, i) => i));
    expect(chunks[0]!.text.startsWith(prose(3000).slice(0, 40))).toBe(true);
  });

  it("repeats about 64 tokens of each chunk at the start of the next, within a long paragraph", () => {
    const chunks = chunkText(prose(2500));
    expect(chunks.length).toBeGreaterThan(3);
    for (let i = 1; i < chunks.length; i++) {
      const overlap = countTokens(sharedText(chunks[i - 1]!.text, chunks[i]!.text));
      expect(overlap).toBeGreaterThanOrEqual(48);
      expect(overlap).toBeLessThanOrEqual(64);
    }
  });

  it("takes maxTokens and overlap as options", () => {
    const chunks = chunkText(prose(1500), { maxTokens: 100, overlap: 10 });
    expect(maxTokensOf(chunks)).toBeLessThanOrEqual(100);
    const overlap = countTokens(sharedText(chunks[0]!.text, chunks[1]!.text));
    expect(overlap).toBeGreaterThan(0);
    expect(overlap).toBeLessThanOrEqual(10);
  });

  it("ends chunks at sentence boundaries when a paragraph is too long", () => {
    const chunks = chunkText(prose(14 * 150), { overlap: 0 });
    for (const chunk of chunks) expect(chunk.text).toMatch(/\.$/);
  });

  it("never produces a chunk over 512 tokens, even for a 3000-token sentence without punctuation", () => {
    const sentence = prose(3000, 7, 1_000_000);
    expect(countTokens(sentence)).toBeGreaterThan(2900);
    const chunks = chunkText(sentence);
    expect(maxTokensOf(chunks)).toBeLessThanOrEqual(512);
    expect(chunks.length).toBeGreaterThanOrEqual(6);
    // Cuts fall between words: every word of every chunk is a word of the sentence.
    const words = new Set(sentence.split(" "));
    for (const chunk of chunks) for (const word of chunk.text.split(" ")) expect(words).toContain(word);
  });

  it("cuts a run of characters with no spaces at all on token boundaries", () => {
    const chunks = chunkText("9f8a7b6c".repeat(2000));
    expect(maxTokensOf(chunks)).toBeLessThanOrEqual(512);
    expect(chunks.map((chunk) => chunk.text).join("")).toContain("9f8a7b6c9f8a7b6c");
  });

  it("splits on headings and carries the nearest heading on each chunk", () => {
    const text = [
      "Welcome to the bank.",
      "# Savings",
      prose(900, 2),
      "## Fixed-term savings",
      "Rates are fixed for one, two or five years.",
      "# Mortgages",
      "We lend up to 90% of the property's value.",
    ].join("\n\n");
    const chunks = chunkText(text);
    expect(chunks[0]).toMatchObject({ heading: null, text: "Welcome to the bank." });
    const savings = chunks.filter((chunk) => chunk.heading === "Savings");
    expect(savings.length).toBeGreaterThanOrEqual(2);
    expect(savings[0]!.text.startsWith("Savings\n\n")).toBe(true);
    expect(chunks.find((chunk) => chunk.heading === "Fixed-term savings")?.text).toBe(
      "Fixed-term savings\n\nRates are fixed for one, two or five years.",
    );
    expect(chunks.at(-1)).toMatchObject({
      heading: "Mortgages",
      text: "Mortgages\n\nWe lend up to 90% of the property's value.",
    });
    // A heading is a hard boundary: no chunk mixes two sections.
    expect(chunks.some((chunk) => chunk.text.includes("Welcome") && chunk.text.includes("Savings"))).toBe(false);
  });

  it("keeps a heading with no text of its own with the section that follows", () => {
    expect(chunkText("# Accounts\n## Current accounts\nNo monthly fee.")).toEqual([
      {
        text: "Accounts\n\nCurrent accounts\n\nNo monthly fee.",
        tokens: expect.any(Number),
        position: 0,
        heading: "Current accounts",
      },
    ]);
  });

  it("splits Chinese and Japanese text at their full stops", () => {
    const sentence = "口座の開設には本人確認書類が必要です。";
    const chunks = chunkText(sentence.repeat(300), { overlap: 0 });
    expect(maxTokensOf(chunks)).toBeLessThanOrEqual(512);
    for (const chunk of chunks) expect(chunk.text).toMatch(/^口座.*です。$/);
  });

  it("chunks 1 MB of text in well under a few seconds", () => {
    const text = Array.from({ length: 800 }, (_, i) => prose(200, i + 1)).join("\n\n");
    expect(text.length).toBeGreaterThan(1_000_000);
    const started = performance.now();
    const chunks = chunkText(text);
    expect(performance.now() - started).toBeLessThan(2500);
    expect(maxTokensOf(chunks)).toBeLessThanOrEqual(512);
  });
});
