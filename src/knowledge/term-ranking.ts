// PostgreSQL's ts_rank, default weights and normalisation, reproduced for an in-memory index (src/knowledge/term-index.ts):
// the full-text candidates it gives are those the database gives, in the same order. ts_rank computes in `float`
// (single precision): `Math.fround` rounds where the C code stores a float.

/** ts_rank's default weights of the position labels D, C, B and A (tsrank.c). */
const labelWeights = [0.1, 0.2, 0.4, 1.0].map(Math.fround);
const piSquaredOverSix = 1.64493406685;

/** One lexeme of a tsvector: its positions' weight labels (0 = D … 3 = A), one per position (one D when it has none). */
export interface Lexeme {
  lexeme: string;
  labels: number[];
}

/**
 * What one lexeme of a document adds to ts_rank's sum for a query containing it (calc_rank_or): its positions'
 * weights over the squares of their ranks, the heaviest counted in full. In double precision, as C adds it.
 */
export function rankContribution(labels: number[]): number {
  let sum = 0;
  let heaviest = -1;
  let heaviestAt = 0;
  for (const [j, label] of labels.entries()) {
    const weight = labelWeights[label]!;
    sum = Math.fround(sum + Math.fround(weight / ((j + 1) * (j + 1))));
    if (weight > heaviest) {
      heaviest = weight;
      heaviestAt = j;
    }
  }
  const adjusted = Math.fround(Math.fround(heaviest + sum) - Math.fround(heaviest / ((heaviestAt + 1) * (heaviestAt + 1))));
  return adjusted / piSquaredOverSix;
}

/** Adds a contribution to a rank sum held in single precision, as the C code's `res = res + …` does. */
export const addContribution = (sum: number, contribution: number) => Math.fround(sum + contribution);

/** The rank of a sum over a query of `terms` distinct lexemes. */
export const finalRank = (sum: number, terms: number) => Math.fround(sum / terms);

/** Byte order of the lexemes' UTF-8, as PostgreSQL sorts a query's operands before summing (and as `COLLATE "C"`). */
export const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

const labelOf: Record<string, number> = { A: 3, B: 2, C: 1, D: 0 };

/**
 * The lexemes of a tsvector's text form (`'card':1,5A 'it''s':3`): each quoted, a quote inside doubled and a backslash
 * escaping the next character; positions after a colon, each with an optional weight label (D when absent).
 */
export function parseTsvector(text: string): Lexeme[] {
  const lexemes: Lexeme[] = [];
  let i = 0;
  while (i < text.length) {
    if (text[i] !== "'") {
      i++;
      continue;
    }
    let lexeme = "";
    i++;
    for (; i < text.length; i++) {
      const c = text[i]!;
      if (c === "\\") lexeme += text[++i] ?? "";
      else if (c === "'" && text[i + 1] === "'") lexeme += text[i++]!;
      else if (c === "'") break;
      else lexeme += c;
    }
    i++;
    const labels: number[] = [];
    if (text[i] === ":") {
      i++;
      const end = text.indexOf(" ", i);
      for (const position of text.slice(i, end < 0 ? text.length : end).split(",")) {
        labels.push(labelOf[position.at(-1)!] ?? 0);
      }
      i = end < 0 ? text.length : end;
    } else {
      labels.push(0);
    }
    lexemes.push({ lexeme, labels });
  }
  return lexemes;
}
