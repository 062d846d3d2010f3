import { EmbeddingsModel } from "@energetic-ai/embeddings";
import { afterEach, describe, expect, it, vi } from "vitest";
import { encodeInThread } from "../../src/ai/sentence-encoder.js";

const questions = [
  "how much does it cost to send money to the states",
  "my card stopped working",
  "can i pay by tapping my phone",
  "what time do you open on saturday",
  "i think someone used my card in a shop i have never been to and i want my money back",
];

async function vectorsOf(texts: string[]): Promise<Float32Array[]> {
  const { vectors } = await encodeInThread(texts);
  if (!vectors) throw new Error("the sentence encoder did not load");
  return vectors;
}

describe("the sentence encoder's thread", () => {
  afterEach(() => vi.restoreAllMocks());

  it("encodes requests that arrive while it is busy in one call of the model, each with the vectors it gets alone", async () => {
    const alone = [];
    for (const question of questions) alone.push((await vectorsOf([question]))[0]!);
    const calls = vi.spyOn(EmbeddingsModel.prototype, "embed");

    const together = await Promise.all(questions.map((question) => vectorsOf([question])));

    expect(calls).toHaveBeenCalledTimes(1);
    for (const [i, [vector]] of together.entries()) {
      expect(vector).toHaveLength(alone[i]!.length);
      for (const [d, value] of vector!.entries()) expect(value).toBeCloseTo(alone[i]![d]!, 5);
    }
  });

  it("gives each request its own texts' vectors, in order, when requests of several texts share a call", async () => {
    const [first, second] = await Promise.all([vectorsOf(questions.slice(0, 2)), vectorsOf(questions.slice(2))]);
    const all = await vectorsOf(questions);
    expect([...first, ...second].map((v) => Array.from(v))).toEqual(all.map((v) => Array.from(v)));
  });

  it("fails every request of a call that failed, and encodes the next ones", async () => {
    vi.spyOn(EmbeddingsModel.prototype, "embed").mockRejectedValueOnce(new Error("out of memory"));
    const failed = await Promise.allSettled(questions.slice(0, 3).map((question) => vectorsOf([question])));
    expect(failed.map((outcome) => outcome.status)).toEqual(["rejected", "rejected", "rejected"]);

    const [vector] = await vectorsOf([questions[0]!]);
    expect(vector).toBeInstanceOf(Float32Array);
  });
});
