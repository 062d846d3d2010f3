import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { passageOf } from "../../src/ai/relevance.js";
import { folded } from "../../src/evaluations/judge.js";
import type { TestApp } from "../helpers/app.js";

/** A question of an answers set (test/fixtures/answers/README.md). */
export interface AnswerCase {
  question: string;
  expect: "answer" | "decline";
  /** The FAQ entry's question or term as written in the FAQ. */
  faq?: string;
  mustContain?: string[];
}

/** A conversation of a set's `followups.json`: its last message leans on the customer's question before it. */
export interface FollowUpCase {
  turns: string[];
  /** The FAQ entry that answers the last message, as written in the FAQ. */
  faq: string;
  mustContain: string[];
}

export interface AnswerSet {
  name: string;
  sources: Array<{ title: string; content: string }>;
  cases: AnswerCase[];
  /** None when the set has no `followups.json`. */
  followUps: FollowUpCase[];
}

export const answerSetsDir = fileURLToPath(new URL("../fixtures/", import.meta.url));

/** The sets in test/fixtures (`answers`, `answers-*`), by name. */
export function answerSetNames(): string[] {
  return readdirSync(answerSetsDir)
    .filter((name) => name.startsWith("answers") && existsSync(path.join(answerSetsDir, name, "questions.json")))
    .sort();
}

/** A set's FAQ files (each a manual source, titled by its first `# ` line) and its questions. */
export function readAnswerSet(name: string): AnswerSet {
  const dir = path.resolve(answerSetsDir, name);
  const faqDir = path.join(dir, "faq");
  const sources = readdirSync(faqDir)
    .filter((file) => file.endsWith(".md"))
    .sort()
    .map((file) => {
      const text = readFileSync(path.join(faqDir, file), "utf8");
      const title = /^#\s+(.+)$/m.exec(text)?.[1]?.trim() ?? file.replace(/\.md$/, "");
      return { title, content: text };
    });
  const cases = JSON.parse(readFileSync(path.join(dir, "questions.json"), "utf8")) as AnswerCase[];
  const followUpsFile = path.join(dir, "followups.json");
  const followUps = existsSync(followUpsFile) ? (JSON.parse(readFileSync(followUpsFile, "utf8")) as FollowUpCase[]) : [];
  return { name, sources, cases, followUps };
}

/** Whether a retrieved chunk is the case's FAQ entry. */
export function isEntry(chunk: { title: string | null; sourceTitle?: string; content: string }, faq: string): boolean {
  const passage = passageOf({ ...chunk, sourceTitle: chunk.sourceTitle ?? "", similarity: 0 });
  const want = folded(faq);
  return passage.question ? folded(passage.question) === want : folded(chunk.content).includes(want);
}

export function containsAll(reply: string, needles: string[]): boolean {
  const text = folded(reply);
  return needles.every((needle) => text.includes(folded(needle)));
}

/**
 * Adds the set's FAQ files to the tenant as manual sources, then waits for its FAQ entry classifier: questions asked
 * while it trains would rank without it.
 */
export async function ingestAnswerSet(app: TestApp, tenant: { tenantId: string; apiKey: string }, set: AnswerSet): Promise<void> {
  for (const source of set.sources) {
    const res = await app.request("/api/knowledge/sources", { key: tenant.apiKey, body: { type: "manual", ...source } });
    if (res.status !== 201) throw new Error(`ingesting ${source.title}: ${res.status} ${JSON.stringify(res.body)}`);
  }
  await app.services.faqEntries.ready(tenant.tenantId);
}

export type Outcome = "right" | "wrong" | "declined" | "handed off";

export interface CaseResult {
  case: AnswerCase;
  /** 1-based rank of the case's FAQ entry in the top 5 the retriever gives, or null. */
  rank: number | null;
  reply: string;
  outcome: Outcome;
  /** Declined, with the case's FAQ question among the questions the reply lists (the customer's next message: its number). */
  listed: boolean;
}

/** Each question in a conversation of its own, through `/api/knowledge` (ranking) and `/api/chat` (the reply). */
export async function evaluateAnswerSet(app: TestApp, apiKey: string, set: AnswerSet): Promise<CaseResult[]> {
  const results: CaseResult[] = [];
  for (const item of set.cases) {
    const search = await app.request("/api/knowledge", { key: apiKey, body: { query: item.question, topK: 5 } });
    const hits = (search.body.results ?? []) as Array<{ title: string | null; source_title: string; text: string }>;
    const index = item.faq
      ? hits.findIndex((h) => isEntry({ title: h.title, sourceTitle: h.source_title, content: h.text }, item.faq!))
      : -1;
    const chat = await app.request("/api/chat", { key: apiKey, body: { message: item.question } });
    if (chat.status !== 200) throw new Error(`chat: ${chat.status} ${JSON.stringify(chat.body)}`);
    const reply = chat.body.response as string;
    const agentType = chat.body.metadata?.agentType as string;
    // The team's, not the AI's: the message escalated (an urgent or hand-off intent above the escalation bar).
    const outcome: Outcome =
      chat.body.handledBy === "team"
        ? "handed off"
        : agentType === "fallback"
          ? "declined"
          : item.expect === "answer" && containsAll(reply, item.mustContain ?? [])
            ? "right"
            : "wrong";
    const listed = outcome === "declined" && item.faq !== undefined && folded(reply).includes(folded(item.faq));
    results.push({ case: item, rank: index >= 0 ? index + 1 : null, reply, outcome, listed });
  }
  return results;
}

export interface AnswerScores {
  answerable: number;
  unanswerable: number;
  hitAt1: number;
  hitAt5: number;
  right: number;
  declined: number;
  /** Declined with the right FAQ question listed, among the answerable questions. */
  listed: number;
  handedOff: number;
  /** Handed off with the knowledge base's right answer after the notice (an urgent intent's self-help). */
  handedOffAnswered: number;
  /** Wrong answers per answer given (to answerable and unanswerable questions alike). */
  wrongPerAnswered: number;
  unanswerableDeclined: number;
}

export function scoreAnswers(results: CaseResult[]): AnswerScores {
  const answerable = results.filter((r) => r.case.expect === "answer");
  const unanswerable = results.filter((r) => r.case.expect === "decline");
  const share = (part: number, whole: number) => (whole ? part / whole : 0);
  const count = (rows: CaseResult[], outcome: Outcome) => rows.filter((r) => r.outcome === outcome).length;
  const answered = answerable.filter((r) => r.outcome === "right" || r.outcome === "wrong").length + count(unanswerable, "wrong");
  return {
    answerable: answerable.length,
    unanswerable: unanswerable.length,
    hitAt1: share(answerable.filter((r) => r.rank === 1).length, answerable.length),
    hitAt5: share(answerable.filter((r) => r.rank !== null).length, answerable.length),
    right: share(count(answerable, "right"), answerable.length),
    declined: share(count(answerable, "declined"), answerable.length),
    listed: share(answerable.filter((r) => r.listed).length, answerable.length),
    handedOff: share(count(answerable, "handed off"), answerable.length),
    handedOffAnswered: share(
      answerable.filter((r) => r.outcome === "handed off" && containsAll(r.reply, r.case.mustContain ?? [])).length,
      answerable.length,
    ),
    wrongPerAnswered: share(count(answerable, "wrong") + count(unanswerable, "wrong"), answered),
    unanswerableDeclined: share(unanswerable.length - count(unanswerable, "wrong"), unanswerable.length),
  };
}

/** Each follow-up conversation through `/api/chat`, in one conversation: shares of last replies right, declined, wrong. */
export async function evaluateFollowUps(app: TestApp, apiKey: string, set: AnswerSet) {
  const outcomes: Outcome[] = [];
  for (const item of set.followUps) {
    let conversationId: string | undefined;
    let last: { response: string; handledBy: string; metadata: { agentType: string } } | undefined;
    for (const message of item.turns) {
      const chat = await app.request("/api/chat", {
        key: apiKey,
        body: { message, ...(conversationId ? { conversationId } : {}) },
      });
      if (chat.status !== 200) throw new Error(`chat: ${chat.status} ${JSON.stringify(chat.body)}`);
      last = chat.body;
      conversationId = chat.body.conversationId;
    }
    outcomes.push(
      last!.handledBy === "team"
        ? "handed off"
        : last!.metadata.agentType === "fallback"
          ? "declined"
          : containsAll(last!.response, item.mustContain)
            ? "right"
            : "wrong",
    );
  }
  const share = (outcome: Outcome) => outcomes.filter((o) => o === outcome).length / Math.max(1, outcomes.length);
  return { conversations: outcomes.length, right: share("right"), declined: share("declined"), wrong: share("wrong") };
}
