import { z } from "zod";

export interface IntentExample {
  text: string;
  intent: string;
}

export interface IntentPrediction {
  intent: string;
  /** 0..1: the top probability's margin over chance; about 0.5 separates confident predictions from unsure ones. */
  confidence: number;
}

export interface IntentClassifier {
  readonly intents: string[];
  /** Whether the model also reads what a text means: its sentence encoding (src/ai/semantic.ts), passed to classify. */
  readonly usesMeaning: boolean;
  /** Without the text's encoding, a model that uses meaning classifies by its words alone. */
  classify(text: string, meaning?: Float32Array | null): IntentPrediction;
  classifyMany(texts: string[], meanings?: ReadonlyArray<Float32Array | null>): IntentPrediction[];
  toJSON(): unknown;
}

export interface TrainOptions {
  seed?: number;
  /** Passes over the examples; by default enough for about 20,000 updates, within 4..200. */
  epochs?: number;
  /** log2 of the hashed feature space. */
  hashBits?: number;
  /**
   * The examples' sentence encodings, in the examples' order: with them the model learns from what the examples
   * mean beside their words (on BANKING77, 74 % → 81 % with ten examples per intent: test/bench/README.md).
   */
  meanings?: ReadonlyArray<Float32Array>;
}

// 2 added the meaning head; a model of version 1 has none and still loads.
const formatVersion = 2;
// The words' and the meaning's log-probabilities are mixed in this proportion (measured on BANKING77's split).
const wordsShare = 0.6;
const charGrams = { min: 2, max: 5 };
const learningRate = 3;
const minUpdates = 20_000;
const epochRange = { min: 4, max: 200 };
// Once an example is learnt most classes get a vanishing gradient; skipping them makes later epochs much cheaper.
const gradientFloor = 1e-3;

const seeds = { word: 0x811c9dc5, bigram: 0x1b873593, char: 0x9747b28c };
const step = (hash: number, code: number) => Math.imul(hash ^ code, 0x01000193);
// FNV-1a's low bits are poorly mixed and the bucket is taken from them: Murmur3's finaliser spreads them.
function finalize(hash: number): number {
  let h = hash ^ (hash >>> 16);
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

function words(text: string): string[] {
  const folded = text
    .toLowerCase()
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    // "don't" and "dont" are the same word to a customer typing fast.
    .replace(/['’`]/g, "");
  return folded.split(/[^\p{L}\p{N}]+/u).filter(Boolean);
}

/** Hashed term counts: words, word bigrams and character n-grams inside padded words (robust to typos and inflections). */
function termCounts(text: string, hashBits: number): Map<number, number> {
  const counts = new Map<number, number>();
  const mask = 2 ** hashBits - 1;
  const add = (hash: number) => {
    const bucket = finalize(hash) & mask;
    counts.set(bucket, (counts.get(bucket) ?? 0) + 1);
  };
  let previous = 0;
  for (const [index, word] of words(text).entries()) {
    let hash = seeds.word;
    for (let i = 0; i < word.length; i++) hash = step(hash, word.charCodeAt(i));
    add(hash);
    if (index > 0) add(step(step(seeds.bigram, previous), hash));
    previous = hash;
    const padded = ` ${word} `;
    for (let start = 0; start < padded.length; start++) {
      let gram = seeds.char;
      for (let n = 1; n <= charGrams.max && start + n <= padded.length; n++) {
        gram = step(gram, padded.charCodeAt(start + n - 1));
        if (n >= charGrams.min) add(gram);
      }
    }
  }
  return counts;
}

interface SparseVector {
  columns: Int32Array;
  values: Float64Array;
  /** Share of the text's weight carried by features the model knows. */
  coverage: number;
}

interface ModelState {
  intents: string[];
  hashBits: number;
  /** Hashed bucket of each feature column. */
  buckets: Int32Array;
  idf: Float32Array;
  /** Weights quantised per column: weight = scale[column] * weights[column * intents + intent]. */
  scale: Float32Array;
  weights: Int8Array;
  bias: Float64Array;
  /** Softmax weights over the sentence encoding, quantised like the words' (one column a dimension). */
  meaning?: { scale: Float32Array; weights: Int8Array; bias: Float64Array };
}

class LinearIntentClassifier implements IntentClassifier {
  readonly intents: string[];
  private readonly columnOf: Map<number, number>;
  // Unknown features still count in the norm (at the rarest weight), so mostly unfamiliar text gets flat, unsure scores.
  private readonly unseenIdf: number;

  constructor(private readonly state: ModelState) {
    this.intents = state.intents;
    this.columnOf = new Map(Array.from(state.buckets, (bucket, column) => [bucket, column]));
    this.unseenIdf = state.idf.reduce((max, value) => Math.max(max, value), 1);
  }

  vectorize(counts: Map<number, number>): SparseVector {
    const columns: number[] = [];
    const values: number[] = [];
    let known = 0;
    let total = 0;
    for (const [bucket, count] of counts) {
      const column = this.columnOf.get(bucket);
      const tf = 1 + Math.log(count);
      if (column === undefined) {
        total += (tf * this.unseenIdf) ** 2;
        continue;
      }
      const value = tf * this.state.idf[column]!;
      columns.push(column);
      values.push(value);
      known += value * value;
    }
    total += known;
    const norm = Math.sqrt(total) || 1;
    return {
      columns: Int32Array.from(columns),
      values: Float64Array.from(values, (value) => value / norm),
      coverage: Math.sqrt(known) / norm,
    };
  }

  get usesMeaning(): boolean {
    return this.state.meaning !== undefined;
  }

  classify(text: string, meaning?: Float32Array | null): IntentPrediction {
    const { intents, scale, weights, bias } = this.state;
    const vector = this.vectorize(termCounts(text, this.state.hashBits));
    // A single intent has no rival to be compared with: how familiar the text looks is all there is to say.
    if (intents.length === 1) return { intent: intents[0]!, confidence: vector.coverage };
    let scores = scoresOf(vector, bias, scale, weights);
    const head = this.state.meaning;
    if (head && meaning?.length === head.scale.length) {
      const byWords = logSoftmax(scores);
      const byMeaning = logSoftmax(scoresOf(denseVector(meaning), head.bias, head.scale, head.weights));
      scores = byWords.map((value, k) => wordsShare * value + (1 - wordsShare) * byMeaning[k]!);
    }
    const best = argmax(scores);
    let sum = 0;
    for (const score of scores) sum += Math.exp(score - scores[best]!);
    // Above chance rather than the raw probability: with two intents an unknown text would otherwise score 0.5.
    const chance = 1 / intents.length;
    return { intent: intents[best]!, confidence: Math.max(0, (1 / sum - chance) / (1 - chance)) };
  }

  classifyMany(texts: string[], meanings?: ReadonlyArray<Float32Array | null>): IntentPrediction[] {
    return texts.map((text, i) => this.classify(text, meanings?.[i]));
  }

  toJSON(): unknown {
    const { intents, hashBits, buckets, idf, scale, weights, bias, meaning } = this.state;
    return {
      version: formatVersion,
      intents,
      hashBits,
      buckets: toBase64(buckets),
      idf: toBase64(idf),
      scale: toBase64(scale),
      weights: toBase64(weights),
      bias: [...bias],
      ...(meaning && {
        meaning: { scale: toBase64(meaning.scale), weights: toBase64(meaning.weights), bias: [...meaning.bias] },
      }),
    };
  }
}

// The columns of a dense vector, 0..n-1, shared by every vector of that length (a training's thousands of examples).
const denseColumns = new Map<number, Int32Array>();

/** A dense vector as the sparse kind the softmax reads: every dimension a column. */
function denseVector(values: Float32Array): SparseVector {
  let columns = denseColumns.get(values.length);
  if (!columns) {
    columns = Int32Array.from(values, (_, i) => i);
    denseColumns.set(values.length, columns);
  }
  return { columns, values: Float64Array.from(values), coverage: 1 };
}

function logSoftmax(scores: Float64Array): Float64Array {
  const top = scores[argmax(scores)]!;
  let sum = 0;
  for (const score of scores) sum += Math.exp(score - top);
  const log = top + Math.log(sum);
  return scores.map((score) => score - log);
}

function scoresOf({ columns, values }: SparseVector, bias: Float64Array, scale: Float32Array, weights: Int8Array): Float64Array {
  const classes = bias.length;
  const scores = Float64Array.from(bias);
  for (let j = 0; j < columns.length; j++) {
    const offset = columns[j]! * classes;
    const value = values[j]! * scale[columns[j]!]!;
    for (let k = 0; k < classes; k++) scores[k]! += value * weights[offset + k]!;
  }
  return scores;
}

function argmax(values: ArrayLike<number>): number {
  let best = 0;
  for (let k = 1; k < values.length; k++) if (values[k]! > values[best]!) best = k;
  return best;
}

function mulberry32(seed: number): () => number {
  let state = seed | 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Multinomial logistic regression by SGD with a linearly decaying step; returns float weights laid out column-major. */
function fitSoftmax(vectors: SparseVector[], labels: number[], classes: number, columns: number, epochs: number, seed: number) {
  const weights = new Float64Array(columns * classes);
  const bias = new Float64Array(classes);
  const random = mulberry32(seed);
  const order = vectors.map((_, i) => i);
  const scores = new Float64Array(classes);
  const active = new Int32Array(classes);
  const steps = new Float64Array(classes);
  const total = epochs * vectors.length;
  let update = 0;
  for (let epoch = 0; epoch < epochs; epoch++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    for (const i of order) {
      const { columns: features, values } = vectors[i]!;
      const rate = learningRate * (1 - update++ / total);
      scores.set(bias);
      for (let j = 0; j < features.length; j++) {
        const offset = features[j]! * classes;
        const value = values[j]!;
        for (let k = 0; k < classes; k++) scores[k]! += value * weights[offset + k]!;
      }
      const top = scores[argmax(scores)]!;
      let sum = 0;
      for (let k = 0; k < classes; k++) sum += scores[k] = Math.exp(scores[k]! - top);
      let count = 0;
      for (let k = 0; k < classes; k++) {
        const gradient = scores[k]! / sum - (k === labels[i] ? 1 : 0);
        if (Math.abs(gradient) < gradientFloor) continue;
        active[count] = k;
        steps[count++] = rate * gradient;
        bias[k]! -= rate * gradient;
      }
      for (let j = 0; j < features.length; j++) {
        const offset = features[j]! * classes;
        const value = values[j]!;
        for (let a = 0; a < count; a++) weights[offset + active[a]!]! -= steps[a]! * value;
      }
    }
  }
  return { weights, bias };
}

// Int8 per column costs no measurable accuracy on BANKING77 and keeps the model (and its JSON) 8x smaller than float64.
function quantize(weights: Float64Array, classes: number) {
  const columns = weights.length / classes;
  const scale = new Float32Array(columns);
  const quantized = new Int8Array(weights.length);
  for (let column = 0; column < columns; column++) {
    let max = 0;
    for (let k = 0; k < classes; k++) max = Math.max(max, Math.abs(weights[column * classes + k]!));
    scale[column] = max / 127 || 1;
    for (let k = 0; k < classes; k++) {
      quantized[column * classes + k] = Math.round(weights[column * classes + k]! / scale[column]!);
    }
  }
  return { scale, weights: quantized };
}

export function trainIntentClassifier(examples: IntentExample[], options: TrainOptions = {}): IntentClassifier {
  if (examples.length === 0) throw new Error("An intent classifier needs at least one example");
  const hashBits = options.hashBits ?? 18;
  if (!Number.isInteger(hashBits) || hashBits < 8 || hashBits > 30) throw new Error("hashBits must be an integer from 8 to 30");
  if (options.meanings && options.meanings.length !== examples.length) throw new Error("one meaning per example is needed");
  // Sorted so that the model does not depend on the order the examples were stored in.
  const sorted = examples
    .map((example, i) => ({ ...example, meaning: options.meanings?.[i] }))
    .sort((a, b) => compare(a.intent, b.intent) || compare(a.text, b.text));
  const intents = [...new Set(sorted.map((example) => example.intent))];
  const counts = sorted.map((example) => termCounts(example.text, hashBits));

  const documentFrequency = new Map<number, number>();
  for (const terms of counts)
    for (const bucket of terms.keys()) documentFrequency.set(bucket, (documentFrequency.get(bucket) ?? 0) + 1);
  const buckets = Int32Array.from(documentFrequency.keys());
  const idf = Float32Array.from(buckets, (bucket) => Math.log((1 + counts.length) / (1 + documentFrequency.get(bucket)!)) + 1);

  const classes = intents.length;
  const placeholder = new LinearIntentClassifier({
    intents,
    hashBits,
    buckets,
    idf,
    scale: new Float32Array(buckets.length),
    weights: new Int8Array(buckets.length * classes),
    bias: new Float64Array(classes),
  });
  if (classes === 1) return placeholder;

  const vectors = counts.map((terms) => placeholder.vectorize(terms));
  const labels = sorted.map((example) => intents.indexOf(example.intent));
  const epochs = options.epochs ?? Math.min(epochRange.max, Math.max(epochRange.min, Math.ceil(minUpdates / sorted.length)));
  const fitted = fitSoftmax(vectors, labels, classes, buckets.length, epochs, options.seed ?? 1);
  const meaning =
    options.meanings &&
    meaningHead(
      sorted.map((example) => example.meaning!),
      labels,
      classes,
      epochs,
      options.seed ?? 1,
    );
  return new LinearIntentClassifier({
    intents,
    hashBits,
    buckets,
    idf,
    bias: fitted.bias,
    ...quantize(fitted.weights, classes),
    ...(meaning && { meaning }),
  });
}

function meaningHead(meanings: Float32Array[], labels: number[], classes: number, epochs: number, seed: number) {
  const dimensions = meanings[0]?.length ?? 0;
  if (!dimensions || meanings.some((meaning) => meaning.length !== dimensions)) throw new Error("meanings must share one length");
  const fitted = fitSoftmax(meanings.map(denseVector), labels, classes, dimensions, epochs, seed);
  const { scale, weights } = quantize(fitted.weights, classes);
  return { scale, weights, bias: fitted.bias };
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

const toBase64 = (array: ArrayBufferView) => Buffer.from(array.buffer, array.byteOffset, array.byteLength).toString("base64");

function fromBase64<T>(text: string, make: (buffer: ArrayBuffer) => T): T {
  const bytes = Buffer.from(text, "base64");
  // Copied into a fresh buffer: Node's pooled Buffers are not aligned for 4-byte views.
  return make(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}

const serialized = z.object({
  version: z.union([z.literal(1), z.literal(formatVersion)]),
  intents: z.array(z.string()).min(1),
  hashBits: z.number().int().min(8).max(30),
  buckets: z.string(),
  idf: z.string(),
  scale: z.string(),
  weights: z.string(),
  bias: z.array(z.number()),
  meaning: z.object({ scale: z.string(), weights: z.string(), bias: z.array(z.number()) }).optional(),
});

export function loadIntentClassifier(json: unknown): IntentClassifier {
  const data = serialized.parse(json);
  const state: ModelState = {
    intents: data.intents,
    hashBits: data.hashBits,
    buckets: fromBase64(data.buckets, (buffer) => new Int32Array(buffer)),
    idf: fromBase64(data.idf, (buffer) => new Float32Array(buffer)),
    scale: fromBase64(data.scale, (buffer) => new Float32Array(buffer)),
    weights: fromBase64(data.weights, (buffer) => new Int8Array(buffer)),
    bias: Float64Array.from(data.bias),
    ...(data.meaning && {
      meaning: {
        scale: fromBase64(data.meaning.scale, (buffer) => new Float32Array(buffer)),
        weights: fromBase64(data.meaning.weights, (buffer) => new Int8Array(buffer)),
        bias: Float64Array.from(data.meaning.bias),
      },
    }),
  };
  const columns = state.buckets.length;
  const head = state.meaning;
  const consistent =
    state.idf.length === columns &&
    state.scale.length === columns &&
    state.weights.length === columns * state.intents.length &&
    state.bias.length === state.intents.length &&
    (!head || (head.weights.length === head.scale.length * state.intents.length && head.bias.length === state.intents.length));
  if (!consistent) throw new Error("Serialized intent classifier is inconsistent");
  return new LinearIntentClassifier(state);
}
