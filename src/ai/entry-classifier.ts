/**
 * Which of a tenant's FAQ entries a question asks about: a softmax over the entries, trained on the sentence
 * encodings (src/ai/semantic.ts) of each entry's question, its question with its answer, and its answer's sentences.
 *
 * Cosine similarity reads each entry alone; this model reads them against each other. Two entries about cards share
 * most of their meaning, and the softmax learns the directions that tell them apart, which is what decides between
 * close candidates. A relevance signal (src/ai/relevance.ts): measured leaving each bank out, it lifted the right
 * answers of every answer set (test/bench/README.md, "answers").
 */

export interface EntryClassifierJSON {
  format: 1;
  dims: number;
  entries: string[];
  /** entries × dims, row-major: an entry's weights side by side. */
  weights: number[];
  bias: number[];
}

export interface EntryExamples {
  /** Each entry's id (a chunk id) and the encodings that stand for it. */
  entries: Array<{ id: string; vectors: Float32Array[] }>;
}

// Adam, full batch: 60 passes reach what 300 of plain gradient descent did (the answer sets' leave-one-out figures).
const epochs = 60;
const rate = 0.05;
const l2 = 1e-4;
const beta1 = 0.9;
const beta2 = 0.999;
const negligible = 1e-10;

export class EntryClassifier {
  private readonly index: Map<string, number>;

  constructor(
    readonly entries: string[],
    private readonly dims: number,
    private readonly weights: Float64Array,
    private readonly bias: Float64Array,
  ) {
    this.index = new Map(entries.map((id, i) => [id, i]));
  }

  has(id: string): boolean {
    return this.index.has(id);
  }

  /** The probability of each entry given a question's encoding, by entry id. */
  probabilities(query: Float32Array): Map<string, number> {
    const n = this.entries.length;
    const logits = new Float64Array(n);
    const asked = Float64Array.from(query);
    for (let j = 0; j < n; j++) logits[j] = this.bias[j]! + dot(this.weights, j * this.dims, asked, this.dims);
    softmaxInPlace(logits, 0, n);
    return new Map(this.entries.map((id, j) => [id, logits[j]!]));
  }

  toJSON(): EntryClassifierJSON {
    return {
      format: 1,
      dims: this.dims,
      entries: this.entries,
      weights: Array.from(this.weights),
      bias: Array.from(this.bias),
    };
  }
}

export function loadEntryClassifier(json: EntryClassifierJSON): EntryClassifier {
  return new EntryClassifier(json.entries, json.dims, Float64Array.from(json.weights), Float64Array.from(json.bias));
}

function dot(weights: Float64Array, offset: number, x: Float64Array, dims: number): number {
  let a = 0;
  let b = 0;
  let c = 0;
  let e = 0;
  let d = 0;
  for (; d + 3 < dims; d += 4) {
    a += weights[offset + d]! * x[d]!;
    b += weights[offset + d + 1]! * x[d + 1]!;
    c += weights[offset + d + 2]! * x[d + 2]!;
    e += weights[offset + d + 3]! * x[d + 3]!;
  }
  for (; d < dims; d++) a += weights[offset + d]! * x[d]!;
  return a + b + c + e;
}

function softmaxInPlace(values: Float64Array, start: number, length: number): void {
  let max = Number.NEGATIVE_INFINITY;
  for (let j = start; j < start + length; j++) max = Math.max(max, values[j]!);
  let sum = 0;
  for (let j = start; j < start + length; j++) {
    values[j] = Math.exp(values[j]! - max);
    sum += values[j]!;
  }
  for (let j = start; j < start + length; j++) values[j]! /= sum;
}

/** Trains the softmax; null when there is nothing to tell apart (fewer than two entries with encodings). */
export function trainEntryClassifier({ entries }: EntryExamples): EntryClassifier | null {
  const kept = entries.filter((e) => e.vectors.length > 0);
  if (kept.length < 2) return null;
  const dims = kept[0]!.vectors[0]!.length;
  const n = kept.length;
  const xs: Float64Array[] = [];
  const labels: number[] = [];
  for (const [j, entry] of kept.entries()) {
    for (const vector of entry.vectors) {
      if (vector.length !== dims) throw new Error("every encoding must have the same length");
      xs.push(Float64Array.from(vector));
      labels.push(j);
    }
  }
  const m = xs.length;
  const weights = new Float64Array(dims * n);
  const bias = new Float64Array(n);
  const moments = {
    w1: new Float64Array(dims * n),
    w2: new Float64Array(dims * n),
    b1: new Float64Array(n),
    b2: new Float64Array(n),
  };
  const logits = new Float64Array(m * n);
  const gradW = new Float64Array(dims * n);
  const gradB = new Float64Array(n);
  for (let t = 1; t <= epochs; t++) {
    // Forward: each example's probabilities over the entries, then (p - y) / m in place: the gradient of the loss.
    for (let i = 0; i < m; i++) {
      const out = i * n;
      for (let j = 0; j < n; j++) logits[out + j] = bias[j]! + dot(weights, j * dims, xs[i]!, dims);
      softmaxInPlace(logits, out, n);
      logits[out + labels[i]!]! -= 1;
      for (let j = 0; j < n; j++) logits[out + j]! /= m;
    }
    gradB.fill(0);
    for (let k = 0; k < dims * n; k++) gradW[k] = l2 * weights[k]!;
    for (let i = 0; i < m; i++) {
      const x = xs[i]!;
      const g = i * n;
      for (let j = 0; j < n; j++) {
        const error = logits[g + j]!;
        gradB[j]! += error;
        // Once trained a little, an example is far from most entries: those terms add nothing measurable.
        if (Math.abs(error) < negligible) continue;
        const row = j * dims;
        for (let d = 0; d < dims; d++) gradW[row + d]! += error * x[d]!;
      }
    }
    const c1 = 1 - beta1 ** t;
    const c2 = 1 - beta2 ** t;
    adamStep(weights, gradW, moments.w1, moments.w2, c1, c2);
    adamStep(bias, gradB, moments.b1, moments.b2, c1, c2);
  }
  return new EntryClassifier(
    kept.map((e) => e.id),
    dims,
    weights,
    bias,
  );
}

function adamStep(params: Float64Array, grad: Float64Array, first: Float64Array, second: Float64Array, c1: number, c2: number) {
  for (let k = 0; k < params.length; k++) {
    const g = grad[k]!;
    first[k] = beta1 * first[k]! + (1 - beta1) * g;
    second[k] = beta2 * second[k]! + (1 - beta2) * g * g;
    params[k]! -= (rate * (first[k]! / c1)) / (Math.sqrt(second[k]! / c2) + 1e-8);
  }
}
