import { describe, expect, it } from "vitest";
import { contentTerms, passageTerms } from "../../src/ai/lexicon.js";

describe("a passage's terms", () => {
  it("are its distinct stemmed content words, as a customer's message gets them", () => {
    const text = "Replacing a lost card: we replace lost or stolen cards free of charge within 5 working days.";
    expect([...passageTerms(text)].sort()).toEqual([...new Set(contentTerms(text))].sort());
    expect(passageTerms(text).has("card")).toBe(true);
    expect(passageTerms(text).has("the")).toBe(false);
  });

  it("are worked out once per text and shared by the questions that retrieve it", () => {
    const text = `Branches open from 9 to 5 on weekdays ${Math.random()}`;
    expect(passageTerms(text)).toBe(passageTerms(text));
  });
});
