import OpenAI from "openai";
import type { Config } from "../config.js";
import { AppError } from "../errors.js";
import { countTokens } from "../knowledge/chunk.js";

/** Turns texts into vectors of one fixed size; the name is stored with each chunk (a new name means re-embedding). */
export interface Embedder {
  readonly name: string;
  readonly dimensions: number;
  embed(texts: string[]): Promise<Float32Array[]>;
}

/** The canonical embedding size (DESIGN §5): the `chunks.embedding` column and both vector indexes assume it. */
export const embeddingDimensions = 1536;

/** The sum of a vector's squared components, in order: its length squared, as cosines divide by. */
export function squaredLength(v: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!;
  return sum;
}

/** For the vector indexes' edges: a wrong-sized vector would otherwise fail deep inside them, or corrupt one. */
export function checkEmbeddingSize(vector: ArrayLike<number>, what: string): void {
  if (vector.length !== embeddingDimensions) {
    throw new Error(`${what} has ${vector.length} dimensions; embeddings have ${embeddingDimensions}`);
  }
}

// Each kind of feature hashes from its own seed, so the word "pin" and the trigram "pin" stay apart.
const wordSeed = 0x811c9dc5;
const bigramSeed = 0x6a09e667;
const gramSeed = 0x3c6ef372;
// A five-letter word yields one unigram and twelve character n-grams: without a lower weight the
// n-grams, which only stand in for spelling variants and typos, would outweigh the words.
const gramWeight = 0.35;
const wordPattern = /[\p{L}\p{N}]+/gu;

/** The last step of MurmurHash3: spreads FNV's weak low bits over the whole word. */
function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

function hashWord(word: string): number {
  let h = wordSeed;
  for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 0x01000193);
  return h;
}

/**
 * Counts of 32-bit feature hashes in an open-addressing table: several times faster than a Map for
 * the ~10,000 features of a chunk, and reused from text to text.
 */
class FeatureCounts {
  keys = new Uint32Array(1 << 14);
  counts = new Uint32Array(1 << 14);
  used: number[] = [];

  add(key: number): void {
    let mask = this.keys.length - 1;
    if (this.used.length * 2 > mask) mask = this.#grow();
    let slot = Math.imul(key, 0x9e3779b1) >>> 0;
    for (;;) {
      slot &= mask;
      if (this.counts[slot] === 0) {
        this.keys[slot] = key;
        this.counts[slot] = 1;
        this.used.push(slot);
        return;
      }
      if (this.keys[slot] === key >>> 0) {
        this.counts[slot]!++;
        return;
      }
      slot++;
    }
  }

  /** Adds each feature, weighted by 1 + ln(tf), to the bucket its hash picks with the sign its hash picks; then empties. */
  drainInto(vector: Float32Array, weight: number): void {
    for (const slot of this.used) {
      const h = mix(this.keys[slot]!);
      const value = weight * (1 + Math.log(this.counts[slot]!));
      vector[h % vector.length]! += h & 0x80000000 ? -value : value;
      this.counts[slot] = 0;
    }
    this.used = [];
  }

  #grow(): number {
    const { keys, counts, used } = this;
    this.keys = new Uint32Array(keys.length * 2);
    this.counts = new Uint32Array(keys.length * 2);
    this.used = [];
    for (const slot of used) {
      for (let n = 0; n < counts[slot]!; n++) this.add(keys[slot]!);
    }
    return this.keys.length - 1;
  }
}

/**
 * The offline embedder of DESIGN §4: signed feature hashing of lower-cased words, word bigrams and
 * the character 3-5-grams of each word (with `<` and `>` marking its ends), each feature weighted by
 * its sublinear term frequency 1 + ln(tf), then L2-normalised. Deterministic, with no model to
 * download; similar wording gives similar vectors, which is all it claims.
 */
export class HashingEmbedder implements Embedder {
  readonly name = "hashing-v1-1536";
  readonly dimensions = embeddingDimensions;
  readonly #words = new FeatureCounts();
  readonly #grams = new FeatureCounts();

  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((text) => this.embedOne(text));
  }

  /** An empty text has no features and gets the zero vector. */
  embedOne(text: string): Float32Array {
    let previous = 0;
    for (const [n, word] of (text.toLowerCase().match(wordPattern) ?? []).entries()) {
      const h = hashWord(word);
      this.#words.add(h);
      if (n > 0) this.#words.add(Math.imul(previous, 0x9e3779b1) ^ h ^ bigramSeed);
      previous = h;
      addGrams(word, this.#grams);
    }
    const vector = new Float32Array(this.dimensions);
    this.#words.drainInto(vector, 1);
    this.#grams.drainInto(vector, gramWeight);
    const norm = squaredLength(vector);
    if (norm > 0) {
      const scale = 1 / Math.sqrt(norm);
      for (let i = 0; i < vector.length; i++) vector[i]! *= scale;
    }
    return vector;
  }
}

/** Character 3-, 4- and 5-grams of `<word>`, hashed incrementally from each start without building substrings. */
function addGrams(word: string, grams: FeatureCounts): void {
  const length = word.length + 2;
  const codeAt = (i: number) => (i === 0 ? 60 : i === length - 1 ? 62 : word.charCodeAt(i - 1));
  for (let start = 0; start + 3 <= length; start++) {
    let h = gramSeed;
    const end = Math.min(start + 5, length);
    for (let i = start; i < end; i++) {
      h = Math.imul(h ^ codeAt(i), 0x01000193);
      if (i - start >= 2) grams.add(h);
    }
  }
}

// OpenAI's limits per request are 2,048 inputs and 300,000 tokens; the margin is for servers that
// count a little differently (special tokens, another tokenizer behind a compatible API).
const maxInputsPerRequest = 2048;
const maxTokensPerRequest = 250_000;

/** Consecutive slices of `texts` within the per-request limits. */
export function batchesOf(texts: string[], maxInputs = maxInputsPerRequest, maxTokens = maxTokensPerRequest): string[][] {
  const batches: string[][] = [];
  let batch: string[] = [];
  let tokens = 0;
  for (const text of texts) {
    const t = countTokens(text);
    if (batch.length && (batch.length >= maxInputs || tokens + t > maxTokens)) {
      batches.push(batch);
      batch = [];
      tokens = 0;
    }
    batch.push(text);
    tokens += t;
  }
  if (batch.length) batches.push(batch);
  return batches;
}

export type OpenAIEmbedderConfig = Pick<Config, "OPENAI_API_KEY" | "OPENAI_BASE_URL" | "OPENAI_EMBEDDING_MODEL">;

export interface OpenAIEmbedderOptions {
  /** Retries of a request that failed with 408, 409, 429 or 5xx or did not connect, with the SDK's backoff. */
  maxRetries?: number;
  timeoutMs?: number;
}

/**
 * Embeddings from any OpenAI-compatible server (DESIGN §4). Asks for base64, which is a quarter of
 * the size of JSON floats, and accepts floats from servers that ignore the encoding.
 */
export class OpenAIEmbedder implements Embedder {
  readonly name: string;
  readonly dimensions = embeddingDimensions;
  readonly #client: OpenAI;
  readonly #model: string;

  constructor(config: OpenAIEmbedderConfig, options: OpenAIEmbedderOptions = {}) {
    this.#model = config.OPENAI_EMBEDDING_MODEL;
    this.name = `openai:${this.#model}`;
    this.#client = new OpenAI({
      apiKey: config.OPENAI_API_KEY,
      baseURL: config.OPENAI_BASE_URL,
      maxRetries: options.maxRetries ?? 5,
      timeout: options.timeoutMs ?? 60_000,
    });
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (const batch of batchesOf(texts)) out.push(...(await this.#request(batch)));
    return out;
  }

  async #request(input: string[]): Promise<Float32Array[]> {
    const response = await this.#client.embeddings
      .create({ model: this.#model, input, dimensions: this.dimensions, encoding_format: "base64" })
      .catch((err: unknown) => {
        const status = err instanceof OpenAI.APIError && err.status ? ` (HTTP ${err.status})` : "";
        throw new AppError("EXTERNAL", `Embedding model ${this.#model} failed${status}: ${(err as Error).message}`);
      });
    const vectors = new Array<Float32Array>(input.length);
    for (const item of response.data) vectors[item.index] = decode(item.embedding as number[] | string);
    for (const [i, v] of vectors.entries()) {
      if (v?.length !== this.dimensions) {
        throw new AppError(
          "EXTERNAL",
          `Embedding model ${this.#model} returned ${v ? `${v.length} dimensions` : "no vector"} for input ${i}; ${this.dimensions} are required`,
        );
      }
    }
    return vectors;
  }
}

function decode(embedding: number[] | string): Float32Array {
  if (typeof embedding !== "string") return Float32Array.from(embedding);
  const bytes = Buffer.from(embedding, "base64");
  // Copied: a Buffer's offset in its pool need not be a multiple of 4.
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}

/** The OpenAI embedder when an API key is configured, else the offline hashing embedder. */
export function createEmbedder(config: OpenAIEmbedderConfig): Embedder {
  return config.OPENAI_API_KEY ? new OpenAIEmbedder(config) : new HashingEmbedder();
}
