import { describe, expect, it } from "vitest";
import { loadIntentClassifier, trainIntentClassifier } from "../../src/ai/intents/classifier.js";
import { defaultIntentClassifier, defaultIntents } from "../../src/ai/intents/defaults.js";
import { encodeMeaning } from "../../src/ai/semantic.js";
import { firstPerIntent, readBanking77, stratifiedSplit } from "../bench/intents.js";

// Phrasings that are not among the default examples.
const heldOut: Record<string, string[]> = {
  human_request: [
    "could I please talk to a real human?",
    "I need to speak with an agent now",
    "is there a person I can chat to",
    "I want to talk to someone, not a machine",
  ],
  greeting: ["hi hi, anyone around?", "good morning, I need some help"],
  thanks: ["thank you very much"],
  goodbye: ["ok bye then"],
  complaint: ["I'm extremely unhappy and want to complain", "this service is appalling, I want to complain"],
  card_lost_or_stolen: ["my card has been stolen", "I can't find my credit card", "my wallet was stolen last night"],
  fraud_report: ["someone has been spending money on my card"],
  balance: ["how much money is in my account"],
  card_not_working: ["my card keeps being declined"],
  card_arrival: ["my new card still hasn't arrived"],
  transfer: ["how do I send money to my sister"],
  payment_failed: ["why did my payment fail"],
  fees: ["how much do you charge for transfers abroad"],
  account_opening: ["I would like to open a current account"],
  loan_or_mortgage: ["can I get a mortgage"],
  pin: ["I've forgotten my PIN"],
  contact_details: ["what number can I call you on"],
  opening_hours: ["what time do you close on Friday"],
};

function expectRecognised(intent: string) {
  for (const text of heldOut[intent]!) {
    const prediction = defaultIntentClassifier().classify(text);
    expect({ text, intent: prediction.intent }).toEqual({ text, intent });
    expect(prediction.confidence, text).toBeGreaterThan(0.5);
  }
}

describe("the default intents", () => {
  it("recognises a request for a human", () => expectRecognised("human_request"));

  it("recognises greetings, thanks and goodbyes", () => {
    for (const intent of ["greeting", "thanks", "goodbye"]) expectRecognised(intent);
  });

  it("recognises complaints, fraud and lost or stolen cards", () => {
    for (const intent of ["complaint", "fraud_report", "card_lost_or_stolen"]) expectRecognised(intent);
  });

  it("recognises the common banking needs", () => {
    const needs = ["balance", "card_not_working", "card_arrival", "transfer", "payment_failed", "fees", "account_opening"];
    for (const intent of [...needs, "loan_or_mortgage", "pin", "contact_details", "opening_hours"]) expectRecognised(intent);
  });

  it("marks the urgent intents and the one that hands over to a person", () => {
    const urgent = defaultIntents.filter((intent) => intent.urgent).map((intent) => intent.name);
    expect(urgent.sort()).toEqual(["card_lost_or_stolen", "complaint", "fraud_report"]);
    expect(defaultIntents.filter((intent) => intent.agentType === "handoff").map((intent) => intent.name)).toEqual([
      "human_request",
    ]);
    for (const intent of defaultIntents) expect(intent.examples.length, intent.name).toBeGreaterThanOrEqual(10);
  });

  it("trains once and covers every default intent", () => {
    expect(defaultIntentClassifier()).toBe(defaultIntentClassifier());
    expect(defaultIntentClassifier().intents.sort()).toEqual(defaultIntents.map((intent) => intent.name).sort());
  });

  it("is unsure about gibberish and off-topic text, and sure about clear requests", () => {
    const classifier = defaultIntentClassifier();
    const offTopic = [
      "asdkjh qwpeoi zxcmv",
      "xyzzy plugh",
      "recipe for banana bread",
      "who won the football last night",
      "",
      "!!!",
    ];
    const clear = classifier.classify("I lost my debit card").confidence;
    for (const text of offTopic) {
      const { confidence } = classifier.classify(text);
      expect(confidence, text).toBeLessThan(0.5);
      expect(confidence, text).toBeLessThan(clear);
    }
  });
});

describe("trainIntentClassifier", () => {
  const examples = defaultIntents.flatMap((intent) => intent.examples.map((text) => ({ text, intent: intent.name })));
  const probes = Object.values(heldOut).flat();

  it("is deterministic, whatever the order of the examples", () => {
    const first = trainIntentClassifier(examples);
    const reversed = trainIntentClassifier([...examples].reverse());
    expect(JSON.stringify(reversed.toJSON())).toBe(JSON.stringify(first.toJSON()));
    expect(reversed.classifyMany(probes)).toEqual(first.classifyMany(probes));
  });

  it("gives identical predictions after a JSON round trip", () => {
    const classifier = trainIntentClassifier(examples);
    const restored = loadIntentClassifier(JSON.parse(JSON.stringify(classifier)));
    expect(restored.intents).toEqual(classifier.intents);
    expect(restored.classifyMany([...probes, "gibberish qwxz"])).toEqual(classifier.classifyMany([...probes, "gibberish qwxz"]));
  });

  it("rejects a model that is not one of its own", () => {
    const json = trainIntentClassifier(examples).toJSON() as Record<string, unknown>;
    expect(() => loadIntentClassifier({ ...json, bias: [1, 2] })).toThrow();
    expect(() => loadIntentClassifier({ version: 99 })).toThrow();
  });

  it("learns from one example per intent", () => {
    const classifier = trainIntentClassifier([
      { text: "hello", intent: "greet" },
      { text: "I lost my card", intent: "lost" },
      { text: "what is my balance", intent: "balance" },
    ]);
    expect(classifier.classifyMany(["hello there", "I've lost my card", "balance?"]).map((p) => p.intent)).toEqual([
      "greet",
      "lost",
      "balance",
    ]);
    expect(classifier.classify("hello there").confidence).toBeGreaterThan(0.5);
    expect(classifier.classify("zzzz qqq").confidence).toBeLessThan(0.5);
  });

  it("answers with the only intent it knows, confident only about familiar text", () => {
    const classifier = trainIntentClassifier([{ text: "what is my balance", intent: "balance" }]);
    expect(classifier.classify("what's my balance")).toMatchObject({ intent: "balance" });
    expect(classifier.classify("what's my balance").confidence).toBeGreaterThan(0.5);
    expect(classifier.classify("zzzz qqq").confidence).toBeLessThan(0.5);
  });

  it("needs at least one example", () => {
    expect(() => trainIntentClassifier([])).toThrow(/at least one example/);
  });
});

describe("on BANKING77", () => {
  it("classifies held-out queries well after 20 examples per intent", () => {
    const { train, test } = stratifiedSplit(readBanking77(), 0.8);
    const classifier = trainIntentClassifier(firstPerIntent(train, 20));
    const heldOutQueries = firstPerIntent(test, 5);
    const predictions = classifier.classifyMany(heldOutQueries.map((row) => row.text));
    const correct = predictions.filter((prediction, i) => prediction.intent === heldOutQueries[i]!.intent).length;
    // Measured 81.8 % (78.7–81.8 % over other split seeds); the bar leaves room for harmless changes.
    expect(correct / heldOutQueries.length).toBeGreaterThan(0.72);
  });
});

describe("a classifier that reads what examples mean", () => {
  // Thirty of BANKING77's intents, ten examples each (the size of a tenant's own set), three held-out questions each.
  const rows = readBanking77();
  const intents = [...new Set(rows.map((row) => row.intent))].sort().slice(0, 30);
  const { train, test } = stratifiedSplit(
    rows.filter((row) => intents.includes(row.intent)),
    0.8,
  );
  const examples = firstPerIntent(train, 10);
  const probes = firstPerIntent(test, 3);
  const encoded = async (texts: string[]) => (await encodeMeaning(texts)) as Float32Array[];
  const accuracy = (predicted: Array<{ intent: string }>) =>
    predicted.filter((p, i) => p.intent === probes[i]!.intent).length / probes.length;

  it("classifies held-out questions better with the examples' sentence encodings than by their words alone", async () => {
    const byWords = trainIntentClassifier(examples);
    const withMeaning = trainIntentClassifier(examples, { meanings: await encoded(examples.map((e) => e.text)) });
    expect(withMeaning.usesMeaning).toBe(true);
    expect(byWords.usesMeaning).toBe(false);
    const texts = probes.map((p) => p.text);
    const wordsAccuracy = accuracy(byWords.classifyMany(texts));
    const meaningAccuracy = accuracy(withMeaning.classifyMany(texts, await encoded(texts)));
    expect(meaningAccuracy).toBeGreaterThanOrEqual(wordsAccuracy + 0.04);
    // Without a text's encoding (the encoder failed to load), it classifies as a model of words alone does.
    expect(withMeaning.classifyMany(texts)).toEqual(byWords.classifyMany(texts));
  });

  it("keeps its meaning through a JSON round trip, and still loads a model of words alone of the first version", async () => {
    const texts = probes.map((p) => p.text);
    const meanings = await encoded(texts);
    const classifier = trainIntentClassifier(examples, { meanings: await encoded(examples.map((e) => e.text)) });
    const restored = loadIntentClassifier(JSON.parse(JSON.stringify(classifier)));
    expect(restored.usesMeaning).toBe(true);
    expect(restored.classifyMany(texts, meanings)).toEqual(classifier.classifyMany(texts, meanings));
    const { meaning: _, ...words } = classifier.toJSON() as Record<string, unknown>;
    const firstVersion = loadIntentClassifier({ ...words, version: 1 });
    expect(firstVersion.usesMeaning).toBe(false);
    expect(firstVersion.classifyMany(texts)).toEqual(trainIntentClassifier(examples).classifyMany(texts));
  });

  it("is unsure about off-topic text with its meaning too", async () => {
    const classifier = trainIntentClassifier(examples, { meanings: await encoded(examples.map((e) => e.text)) });
    const offTopic = ["asdkjh qwpeoi zxcmv", "recipe for banana bread", "who won the football last night"];
    const predictions = classifier.classifyMany(offTopic, await encoded(offTopic));
    for (const [i, { confidence }] of predictions.entries()) expect(confidence, offTopic[i]).toBeLessThan(0.5);
  });

  it("refuses meanings that are not one per example of one length", async () => {
    const [one, other] = await encoded(["a card", "a transfer"]);
    expect(() => trainIntentClassifier(examples, { meanings: [one!] })).toThrow(/one meaning per example/);
    const mixed = examples.map((_, i) => (i ? one! : other!.subarray(0, 10)));
    expect(() => trainIntentClassifier(examples, { meanings: mixed })).toThrow(/one length/);
  });
});
