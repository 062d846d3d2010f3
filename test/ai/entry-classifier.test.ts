import { describe, expect, it } from "vitest";
import { EntryClassifier, loadEntryClassifier, trainEntryClassifier } from "../../src/ai/entry-classifier.js";
import { passageOf } from "../../src/ai/relevance.js";
import { encodeMeaning, meaningSimilarity } from "../../src/ai/semantic.js";
import { chunkText } from "../../src/knowledge/chunk.js";
import { entryTexts } from "../../src/knowledge/faq-entries.js";
import { isEntry, readAnswerSet } from "../bench/answer-set.js";

// The development answer set: a bank FAQ of 68 entries in several shapes (headings, Q/A pairs, a glossary), cut into
// units as ingestion cuts them, and customers' questions naming the entry that answers each.
function developmentSet() {
  const set = readAnswerSet("answers");
  const entries = set.sources.flatMap((source) =>
    chunkText(source.content).flatMap((chunk) => {
      const passage = passageOf({ title: chunk.heading, sourceTitle: source.title, content: chunk.text, similarity: 0 });
      return passage.question ? [{ question: passage.question, answer: passage.body, chunk }] : [];
    }),
  );
  const cases = set.cases.flatMap((c) => {
    const entry =
      c.expect === "answer" ? entries.find((e) => isEntry({ title: e.chunk.heading, content: e.chunk.text }, c.faq!)) : undefined;
    return entry ? [{ question: c.question, entry: entry.question }] : [];
  });
  return { entries, cases };
}

async function encoded(texts: string[]): Promise<Float32Array[]> {
  return (await encodeMeaning(texts, { remember: false })) as Float32Array[];
}

describe("the FAQ entry classifier", () => {
  it("tells a bank's FAQ entries apart better than each entry's closeness alone", async () => {
    const { entries, cases } = developmentSet();
    expect(entries.length).toBeGreaterThanOrEqual(60);
    const examples = await Promise.all(
      entries.map(async (e) => ({ id: e.question, vectors: await encoded(entryTexts(e.question, e.answer)) })),
    );
    const model = trainEntryClassifier({ entries: examples })!;
    const questions = await encoded(cases.map((c) => c.question));

    let byModel = 0;
    let byCloseness = 0;
    for (const [i, asked] of questions.entries()) {
      const probabilities = model.probabilities(asked);
      expect([...probabilities.values()].reduce((a, b) => a + b, 0)).toBeCloseTo(1, 6);
      const best = [...probabilities].sort((a, b) => b[1] - a[1])[0]![0];
      if (best === cases[i]!.entry) byModel++;
      // The same encodings, each entry alone: its closest text (question, question with answer, or a sentence).
      const closest = examples
        .map((e) => ({ id: e.id, score: Math.max(...e.vectors.map((v) => meaningSimilarity(asked, v))) }))
        .sort((a, b) => b.score - a.score)[0]!.id;
      if (closest === cases[i]!.entry) byCloseness++;
    }
    // Measured: 109 against 98 of 217 (50 % against 45 %).
    expect(byModel).toBeGreaterThan(byCloseness + 5);
  }, 120_000);

  it("survives a JSON round trip unchanged", async () => {
    const vectors = await encoded([
      "How do I block my card?",
      "Freeze the card in the app.",
      "What does a transfer abroad cost?",
      "Transfers outside the euro area cost 5 EUR.",
    ]);
    const model = trainEntryClassifier({
      entries: [
        { id: "block", vectors: vectors.slice(0, 2) },
        { id: "abroad", vectors: vectors.slice(2) },
      ],
    })!;
    const [asked] = await encoded(["I lost my card, how can I stop it?"]);
    const again = loadEntryClassifier(JSON.parse(JSON.stringify(model.toJSON())));
    expect(again).toBeInstanceOf(EntryClassifier);
    expect([...again.probabilities(asked!)]).toEqual([...model.probabilities(asked!)]);
    expect(model.probabilities(asked!).get("block")).toBeGreaterThan(0.5);
    expect(again.has("abroad")).toBe(true);
  });

  it("has nothing to learn from fewer than two entries, and refuses encodings of different lengths", () => {
    expect(trainEntryClassifier({ entries: [{ id: "only", vectors: [new Float32Array(4).fill(0.5)] }] })).toBeNull();
    expect(
      trainEntryClassifier({
        entries: [
          { id: "a", vectors: [] },
          { id: "b", vectors: [new Float32Array(4)] },
        ],
      }),
    ).toBeNull();
    expect(() =>
      trainEntryClassifier({
        entries: [
          { id: "a", vectors: [new Float32Array(4)] },
          { id: "b", vectors: [new Float32Array(3)] },
        ],
      }),
    ).toThrow(/same length/);
  });
});
