import { describe, expect, it } from "vitest";
import { bankingLexicon, contentTerms, IntentLexicon, passageProfile, passageTerms } from "../../src/ai/lexicon.js";

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

describe("a passage's intent profile", () => {
  const lexicon = bankingLexicon();

  it("is the lexicon's profile of the passage's terms, worked out once per text", () => {
    const text = `A fee of £5 applies when you replace a lost debit card ${Math.random()}`;
    const profile = passageProfile(lexicon, text);
    expect(profile).toEqual(lexicon.profile(passageTerms(text)));
    expect(passageProfile(lexicon, text)).toBe(profile);
  });

  it("is not shared between texts, nor between lexicons", () => {
    const fees = passageProfile(lexicon, "What are the fees for an international transfer?");
    const pin = passageProfile(lexicon, "How do I change the PIN of my card?");
    expect(fees).not.toEqual(pin);
    const other = new IntentLexicon([
      { text: "international transfer fees", intent: "fees" },
      { text: "change my card PIN", intent: "pin" },
    ]);
    const text = "What are the fees for an international transfer?";
    expect(passageProfile(other, text)).not.toBeNull();
    expect(passageProfile(other, text)).toEqual(other.profile(passageTerms(text)));
    expect(passageProfile(other, text)).not.toEqual(fees);
  });

  it("is null for a text with no word the lexicon knows, and stays so", () => {
    const text = `zzyzx qwpf ${Math.random()}`;
    expect(passageProfile(lexicon, text)).toBeNull();
    expect(passageProfile(lexicon, text)).toBeNull();
  });
});
