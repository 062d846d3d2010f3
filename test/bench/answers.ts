import { contentTerms } from "../../src/ai/lexicon.js";
import type { TestApp } from "../helpers/app.js";
import {
  type AnswerScores,
  type AnswerSet,
  answerSetNames,
  evaluateAnswerSet,
  evaluateFollowUps,
  ingestAnswerSet,
  isEntry,
  readAnswerSet,
  scoreAnswers,
} from "./answer-set.js";
import { type BenchDatabase, benchDatabases, noteRow, startBenchApp } from "./harness.js";

/** Okapi BM25 over the tenant's chunks, the same stemmed words: the baseline the issue asks to stand beside. */
function bm25Ranker(chunks: Array<{ title: string | null; content: string }>) {
  const k1 = 1.2;
  const b = 0.75;
  const docs = chunks.map((c) => contentTerms(c.content));
  const avg = docs.reduce((sum, d) => sum + d.length, 0) / Math.max(1, docs.length);
  const df = new Map<string, number>();
  for (const d of docs) for (const t of new Set(d)) df.set(t, (df.get(t) ?? 0) + 1);
  const idf = (t: string) => Math.log(1 + (docs.length - (df.get(t) ?? 0) + 0.5) / ((df.get(t) ?? 0) + 0.5));
  return (query: string) => {
    const terms = new Set(contentTerms(query));
    const scores = docs.map((d) => {
      const tf = new Map<string, number>();
      for (const t of d) tf.set(t, (tf.get(t) ?? 0) + 1);
      let score = 0;
      for (const t of terms) {
        const f = tf.get(t) ?? 0;
        if (f) score += (idf(t) * f * (k1 + 1)) / (f + k1 * (1 - b + (b * d.length) / avg));
      }
      return score;
    });
    return scores
      .map((score, i) => ({ score, chunk: chunks[i]! }))
      .filter((s) => s.score > 0)
      .sort((x, y) => y.score - x.score);
  };
}

async function bm25Scores(app: TestApp, tenantId: string, set: AnswerSet) {
  const chunks = await app.services.db.sql.query<{ title: string | null; content: string }>(
    "SELECT title, content FROM chunks WHERE tenant_id = $1",
    [tenantId],
  );
  const rank = bm25Ranker(chunks);
  const answerable = set.cases.filter((c) => c.expect === "answer");
  const rankOf = (question: string, faq: string) => rank(question).findIndex((r) => isEntry(r.chunk, faq));
  const ranks = answerable.map((c) => rankOf(c.question, c.faq!));
  return {
    hitAt1: ranks.filter((r) => r === 0).length / answerable.length,
    hitAt5: ranks.filter((r) => r >= 0 && r < 5).length / answerable.length,
  };
}

const percent = (value: number) => `${(value * 100).toFixed(1)} %`;

function row(set: string, database: string, engine: string, s: Partial<AnswerScores>): string {
  const cell = (v: number | undefined) => (v === undefined ? "–" : percent(v));
  return `| ${set} | ${database} | ${engine} | ${cell(s.hitAt1)} | ${cell(s.hitAt5)} | ${cell(s.right)} | ${cell(s.declined)} | ${cell(s.listed)} | ${cell(s.handedOff)} | ${cell(s.handedOffAnswered)} | ${cell(s.wrongPerAnswered)} | ${cell(s.unanswerableDeclined)} |`;
}

/** The set's rows of the table, and its follow-up conversations' row when it has some. */
async function measure(database: BenchDatabase, set: AnswerSet): Promise<{ rows: string[]; followUps: string | null }> {
  const app = await startBenchApp(database);
  try {
    const { tenantId, apiKey } = await app.tenant(`Answers ${set.name}`);
    await ingestAnswerSet(app, { tenantId, apiKey }, set);
    const results = await evaluateAnswerSet(app, apiKey, set);
    const scores = scoreAnswers(results);
    const label = `${set.name} (${scores.answerable} + ${scores.unanswerable})`;
    const rows = [
      row(label, database.name, "Parley offline", scores),
      row(label, database.name, "BM25 (retrieval only)", await bm25Scores(app, tenantId, set)),
    ];
    if (!set.followUps.length) return { rows, followUps: null };
    const f = await evaluateFollowUps(app, apiKey, set);
    return {
      rows,
      followUps: `| ${set.name} | ${database.name} | ${f.conversations} | ${percent(f.right)} | ${percent(f.declined)} | ${percent(f.wrong)} |`,
    };
  } finally {
    await app.close();
  }
}

/**
 * `npm run bench -- answers`: the offline engine on the development set (test/fixtures/answers) and on every other
 * `test/fixtures/answers-*` set, banks no tuning looks at, beside BM25 over the same chunks.
 */
export async function benchAnswers(): Promise<void> {
  const sets = answerSetNames();
  const { databases, unreachable } = await benchDatabases();
  console.log(
    "| set (answerable + unanswerable) | database | engine | hit@1 | hit@5 | right | declined | declined, right question listed | handed off | handed off, with the answer | wrong per answered | unanswerable declined |",
  );
  console.log("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
  const followUps: string[] = [];
  for (const name of sets) {
    const set = readAnswerSet(name);
    for (const database of databases) {
      const measured = await measure(database, set);
      for (const line of measured.rows) console.log(line);
      if (measured.followUps) followUps.push(measured.followUps);
    }
    if (unreachable) console.log(noteRow(12, 1, unreachable));
  }
  console.log("\nTargets (development set): hit@5 ≥ 95 %, right ≥ 85 %, wrong per answered ≤ 3 %, unanswerable declined ≥ 90 %.");
  if (!followUps.length) return;
  console.log("\nFollow-ups (each conversation's last message leans on the question before it; its reply is judged):\n");
  console.log("| set | database | conversations | right | declined | wrong |");
  console.log("|---|---|---:|---:|---:|---:|");
  for (const line of followUps) console.log(line);
}
