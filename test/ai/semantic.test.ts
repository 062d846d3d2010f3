import { describe, expect, it } from "vitest";
import { encodeMeaning, meaningSimilarity } from "../../src/ai/semantic.js";

describe("sentence encodings", () => {
  it("are unit vectors that bring paraphrases closer than other questions", async () => {
    const [asked, paraphrase, other] = await encodeMeaning([
      "How much can I pay by tapping my card?",
      "What is the contactless payment limit?",
      "When are your branches open on Saturday?",
    ]);
    expect(meaningSimilarity(asked!, asked!)).toBeCloseTo(1, 5);
    expect(meaningSimilarity(asked!, paraphrase!)).toBeGreaterThan(meaningSimilarity(asked!, other!));
  });

  it("encode a text asked for by two callers at once only once, and remember it", async () => {
    const text = `Where is my new card ${Math.random()}?`;
    const [[first], [second]] = await Promise.all([encodeMeaning([text]), encodeMeaning([text])]);
    expect(second).toBe(first);
    expect((await encodeMeaning([text]))[0]).toBe(first);
  });

  it("leave what is read once out of the cache", async () => {
    const text = `Can I change my PIN in the app ${Math.random()}?`;
    const [once] = await encodeMeaning([text], { remember: false });
    const [again] = await encodeMeaning([text]);
    expect(again).not.toBe(once);
    expect(Array.from(again!)).toEqual(Array.from(once!));
  });

  it("give null for a text with no words, in its place", async () => {
    const [empty, word] = await encodeMeaning(["   ", "balance"]);
    expect(empty).toBeNull();
    expect(word).toBeInstanceOf(Float32Array);
  });
});
