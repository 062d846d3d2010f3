import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { bankingLexicon, contentTerms } from "../../src/ai/lexicon.js";
import {
  answerProbability,
  modelFor,
  type Passage,
  passageOf,
  rankPassages,
  relevanceFeatures,
  relevanceModels,
  TermMatcher,
} from "../../src/ai/relevance.js";

const faq = (question: string, body: string): Passage => ({ question, body, title: `Bank FAQ › ${question}`, similarity: 0.1 });

describe("the lexicon learned from customers' queries", () => {
  it("weighs a specific word above a word every banking question uses", () => {
    const lexicon = bankingLexicon();
    expect(lexicon.idf("contactless")).toBeGreaterThan(lexicon.idf("card"));
    expect(lexicon.idf("mortgag")).toBeGreaterThan(lexicon.idf("monei"));
  });

  it("associates words customers use for the same need, and not unrelated ones", () => {
    const lexicon = bankingLexicon();
    const [maximum, limit, expired, replace, pin] = contentTerms("maximum limit expired replace PIN");
    expect(lexicon.association(maximum!, limit!)).toBeGreaterThan(0.6);
    expect(lexicon.association(expired!, replace!)).toBeGreaterThan(0.6);
    expect(lexicon.association(maximum!, pin!)).toBeLessThan(0.3);
  });
});

/** Edit distance with a transposition counted as one (optimal string alignment), computed in full. */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i ? (j ? 0 : i) : j)));
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  return d[a.length]![b.length]!;
}

/** What a word is worth to a term, by the rule `strength` documents, one pair at a time. */
function pairValue(term: string, word: string): number {
  if (term === word) return 1;
  const typo =
    [term, word].every((w) => w.length >= 5 && !/\d/.test(w)) && editDistance(term, word) <= (term.length >= 8 ? 2 : 1);
  const association = bankingLexicon().association(term, word);
  return typo ? 0.85 : association >= 0.55 ? 0.75 * association : 0;
}

describe("how well a passage's words carry a question's term", () => {
  it("is the best of its words by the pairwise rule: the word itself, a misspelling, an associated word", () => {
    const matcher = new TermMatcher();
    const [receive, maximum, transfer] = contentTerms("receive maximum transfer");
    expect(matcher.strength(receive!, new Set(contentTerms("I did not recieve it")))).toBe(0.85);
    expect(matcher.strength(transfer!, new Set(["tarnsfer"]))).toBe(0.85);
    expect(matcher.strength(maximum!, new Set(contentTerms("the limit of the card")))).toBeCloseTo(
      0.75 * bankingLexicon().association(maximum!, contentTerms("limit")[0]!),
      12,
    );
    expect(matcher.strength("card", new Set(["cart"]))).toBe(0);

    // Customers' questions' terms, and misspellings of them, against FAQ passages' words.
    const queries = readFileSync(new URL("../../src/ai/data/banking77-train.csv", import.meta.url), "utf8")
      .split("\n")
      .slice(1, 400)
      .map((line) => line.slice(0, line.lastIndexOf(",")));
    const terms = [...new Set(queries.flatMap((q) => contentTerms(q)))];
    const misspelt = terms
      .filter((t) => t.length >= 5)
      .map((t, i) => (i % 2 ? `${t.slice(0, 2)}${t[3]}${t[2]}${t.slice(4)}` : `${t}s`));
    const passages = queries.slice(0, 60).map((q, i) => new Set(contentTerms(`${q} ${queries[i + 60]} ${queries[i + 120]}`)));
    let compared = 0;
    for (const term of [...terms, ...misspelt])
      for (const words of passages) {
        expect(matcher.strength(term, words)).toBe(Math.max(0, ...[...words].map((word) => pairValue(term, word))));
        compared++;
      }
    expect(compared).toBeGreaterThan(10_000);
  });
});

describe("relevance features", () => {
  it("counts a misspelt word as the word", async () => {
    const [typed, spelt] = await relevanceFeatures("how do i recieve my new card", [
      faq("How long until I receive my card?", "Cards arrive within 5 business days."),
      faq("How long until I get my card?", "Cards arrive within 5 business days."),
    ]);
    expect(typed!.questionCoverage).toBeGreaterThan(spelt!.questionCoverage);
  });

  it("ranks the FAQ entry that asks what the customer asks above one sharing only common words", async () => {
    const passages = [
      faq("How do I order a new card?", "Order one in the app under Cards."),
      faq("What is the maximum contactless payment?", "Up to 50 EUR per payment."),
      faq("What is the daily cash withdrawal limit?", "1,000 EUR a day at any ATM."),
    ];
    const scores = (await rankPassages("whats the most cash I can take out of an atm in one day", passages)).logits;
    expect(scores.indexOf(Math.max(...scores))).toBe(2);
  });

  it("compares the question's meaning with the FAQ entry's answer too, not only its question", async () => {
    const [features] = await relevanceFeatures("is there a fee to use the machines of other banks", [
      faq("Cash withdrawal elsewhere", "Withdrawing cash at another bank's ATM costs 2 EUR each time."),
    ]);
    expect(features!.meaningEntry).toBeGreaterThan(features!.meaning);
  });

  it("does not take the only passage of a small knowledge base for an answer because nothing competes with it", async () => {
    const alone = [faq("How do I reset my PIN?", "Open the app, choose Cards, then Reset PIN.")];
    const offTopic = await rankPassages("Do you sell gold coins?", alone);
    const onTopic = await rankPassages("i forgot the pin of my card, how do i reset it", alone);
    expect(answerProbability(offTopic, 0)).toBeLessThan(offTopic.model.decision.threshold);
    expect(answerProbability(onTopic, 0)).toBeGreaterThan(answerProbability(offTopic, 0));
  });

  it("ranks by the model fitted with the FAQ entry classifier only for a tenant that has one", async () => {
    const unit = {
      title: "Cards › How do I block my card?",
      sourceTitle: "Cards",
      content: "How do I block my card?\nIn the app.",
    };
    const text = { title: "Cards", sourceTitle: "Cards", content: "Our cards work worldwide.", similarity: 0.1 };
    expect(passageOf({ ...unit, similarity: 0.2, entry: 0.7 }).entry).toBe(0.7);
    // With a classifier, ordinary text is no entry of it; without one, nothing is.
    expect(passageOf({ ...text, entry: 0.7 }).entry).toBe(0);
    expect(passageOf({ ...unit, similarity: 0.2, entry: null }).entry).toBeUndefined();
    expect(passageOf({ ...unit, similarity: 0.2 }).entry).toBeUndefined();

    const plain = [faq("How do I reset my PIN?", "Open the app, choose Cards, then Reset PIN.")];
    const classified = plain.map((p) => ({ ...p, entry: 0.9 }));
    expect(modelFor(plain)).toBe(relevanceModels.withoutEntries);
    expect(modelFor(classified)).toBe(relevanceModels.withEntries);
    expect(relevanceModels.withoutEntries.passage.weights.entry).toBe(0);
    const asked = "i forgot the pin of my card, how do i reset it";
    expect((await rankPassages(asked, classified)).model).toBe(relevanceModels.withEntries);
    // The classifier's confidence in an entry is evidence for it.
    const withEntry = async (entry: number) =>
      (
        await rankPassages(
          asked,
          plain.map((p) => ({ ...p, entry })),
        )
      ).logits[0]!;
    expect(await withEntry(0.9)).toBeGreaterThan(await withEntry(0.01));
  });

  it("reads an FAQ unit's question apart from its answer, and ordinary text as a body", () => {
    expect(
      passageOf({
        title: "Cards › How do I block my card?",
        sourceTitle: "Cards",
        content: "How do I block my card?\nIn the app.",
        similarity: 0.2,
      }),
    ).toEqual({
      question: "How do I block my card?",
      body: "In the app.",
      title: "Cards › How do I block my card?",
      similarity: 0.2,
    });
    expect(
      passageOf({ title: "Cards", sourceTitle: "Cards", content: "Our cards work abroad.", similarity: 0.2 }).question,
    ).toBeNull();
  });

  it("reads the same text under another title by that title", () => {
    const content = "How do I block my card?\nIn the app.";
    const unit = { title: "Cards › How do I block my card?", sourceTitle: "Cards", content, similarity: 0.2 };
    expect(passageOf(unit).body).toBe("In the app.");
    // The same text in a chunk whose heading is not its first line: ordinary text.
    expect(passageOf({ ...unit, title: "Cards" })).toMatchObject({ question: null, body: content, title: "Cards" });
    expect(passageOf({ ...unit, title: null })).toMatchObject({ question: null, body: content, title: "Cards" });
    expect(passageOf(unit).question).toBe("How do I block my card?");
  });
});
