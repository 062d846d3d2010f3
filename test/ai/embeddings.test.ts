import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { batchesOf, createEmbedder, HashingEmbedder, OpenAIEmbedder } from "../../src/ai/embeddings.js";
import { loadConfig } from "../../src/config.js";
import { AppError } from "../../src/errors.js";
import { type FakeOpenAI, fakeEmbedding, startFakeOpenAI } from "../fakes/openai-server.js";

const cosine = (a: Float32Array, b: Float32Array) => a.reduce((sum, v, i) => sum + v * b[i]!, 0);
const norm = (a: Float32Array) => Math.sqrt(cosine(a, a));

describe("HashingEmbedder", () => {
  const embedder = new HashingEmbedder();

  it("gives 1536-d unit vectors, the same for the same text", async () => {
    const [a, b] = await embedder.embed(["How do I reset my card PIN?", "How do I reset my card PIN?"]);
    expect(embedder.dimensions).toBe(1536);
    expect(a).toHaveLength(1536);
    expect(norm(a!)).toBeCloseTo(1, 5);
    expect(Array.from(b!)).toEqual(Array.from(a!));
    expect(Array.from(new HashingEmbedder().embedOne("How do I reset my card PIN?"))).toEqual(Array.from(a!));
  });

  it("puts similar texts closer than unrelated ones", async () => {
    const [reset, forgot, mortgage] = await embedder.embed([
      "how do I reset my card PIN",
      "I forgot my PIN number",
      "mortgage interest rates",
    ]);
    expect(cosine(reset!, forgot!)).toBeGreaterThan(cosine(reset!, mortgage!) + 0.15);
    expect(cosine(reset!, forgot!)).toBeGreaterThan(cosine(forgot!, mortgage!) + 0.15);
  });

  it("ignores case and punctuation, and matches spelling variants through character n-grams", async () => {
    const [a, b, c, d] = await embedder.embed(["Card PIN!", "card pin", "resetting passwords", "reset password"]);
    expect(cosine(a!, b!)).toBeCloseTo(1, 5);
    expect(cosine(c!, d!)).toBeGreaterThan(0.3);
  });

  it("gives the zero vector for a text without words", async () => {
    const [empty] = await embedder.embed(["  ...  "]);
    expect(norm(empty!)).toBe(0);
  });
});

describe("batchesOf", () => {
  it("keeps requests within 2048 inputs and the token budget, in order", () => {
    const texts = Array.from({ length: 5000 }, (_, i) => `text ${i}`);
    const batches = batchesOf(texts);
    expect(batches.map((b) => b.length)).toEqual([2048, 2048, 904]);
    expect(batches.flat()).toEqual(texts);
    // 10,000 cl100k_base tokens each: " account" is one token.
    const long = Array.from({ length: 10 }, () => " account".repeat(10_000));
    expect(batchesOf(long, 2048, 25_000).map((b) => b.length)).toEqual([2, 2, 2, 2, 2]);
  });
});

describe("OpenAIEmbedder", () => {
  let fake: FakeOpenAI;
  let embedder: OpenAIEmbedder;
  const config = (fake: FakeOpenAI) =>
    loadConfig({ OPENAI_API_KEY: fake.apiKey, OPENAI_BASE_URL: fake.url, OPENAI_EMBEDDING_MODEL: "text-embedding-3-small" });

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    embedder = new OpenAIEmbedder(config(fake), { maxRetries: 2 });
  });
  afterAll(() => fake?.close());

  it("is chosen when an API key is configured, and named after its model", () => {
    expect(createEmbedder(config(fake)).name).toBe("openai:text-embedding-3-small");
    expect(createEmbedder(loadConfig({}))).toBeInstanceOf(HashingEmbedder);
  });

  it("returns the server's vectors in input order, asking for 1536 dimensions", async () => {
    fake.requests.length = 0;
    const vectors = await embedder.embed(["open an account", "close an account"]);
    expect(vectors.map((v) => Array.from(v))).toEqual([
      Array.from(fakeEmbedding("open an account", 1536)),
      Array.from(fakeEmbedding("close an account", 1536)),
    ]);
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]!.path).toBe("/v1/embeddings");
    expect(fake.requests[0]!.body).toMatchObject({ model: "text-embedding-3-small", dimensions: 1536 });
  });

  it("splits a large input into requests of at most 2048 texts", async () => {
    fake.requests.length = 0;
    const texts = Array.from({ length: 4500 }, (_, i) => `question ${i}`);
    const vectors = await embedder.embed(texts);
    expect(fake.requests.map((r) => r.body.input.length)).toEqual([2048, 2048, 404]);
    expect(Array.from(vectors[4499]!)).toEqual(Array.from(fakeEmbedding("question 4499", 1536)));
  });

  it("retries after a 429 and succeeds", async () => {
    fake.requests.length = 0;
    fake.failNext({ status: 429, headers: { "retry-after-ms": "10" }, message: "Rate limit reached" });
    const [vector] = await embedder.embed(["retry me"]);
    expect(Array.from(vector!)).toEqual(Array.from(fakeEmbedding("retry me", 1536)));
    expect(fake.requests).toHaveLength(2);
  });

  it("fails with a clear EXTERNAL error once the retries are spent", async () => {
    const failure = { status: 503, headers: { "retry-after-ms": "1" }, message: "Overloaded" };
    fake.failNext(failure, failure, failure);
    const error = await embedder.embed(["never"]).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: "EXTERNAL", status: 502 });
    expect((error as Error).message).toMatch(/text-embedding-3-small failed \(HTTP 503\)/);
  });

  it("refuses vectors of another size", async () => {
    fake.route("POST", "/v1/embeddings", (_request, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ object: "list", data: [{ object: "embedding", index: 0, embedding: [0.6, 0.8] }], model: "m" }));
    });
    await expect(embedder.embed(["short"])).rejects.toThrow(/returned 2 dimensions/);
  });
});
