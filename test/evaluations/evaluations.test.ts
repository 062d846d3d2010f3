import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitingNotice } from "../../src/conversations/waiting.js";
import { newBankFaq } from "../fixtures/new-bank-faq.js";
import { startTestApp, type TestApp } from "../helpers/app.js";

let app: TestApp;
let bank: { tenantId: string; apiKey: string };
let transfersSource: string;

const cardsFaq = `# Cards FAQ

## How long does a new card take to arrive?
A new debit card arrives within 5 working days by post.

## How do I freeze a lost card?
Open the app, go to Cards and tap Freeze card. You can unfreeze it at any time.
`;
const transfersFaq = `# Transfers FAQ

## What is the daily transfer limit?
The daily transfer limit for online banking is 10,000 euros.
`;

/** One case of each expectation kind; two fail on purpose (a phrase the FAQ lacks, a decline the FAQ answers). */
const cases = [
  { question: "How long does a new card take to arrive?", expect: "source", source: "Cards FAQ" },
  { question: "How long does a new card take to arrive?", expect: "contains", contains: ["5 WORKING DAYS", "post"] },
  { question: "How long does a new card take to arrive?", expect: "contains", contains: ["48 hours"], channel: "sms" },
  { question: "What is the weather on Mars?", expect: "decline" },
  { question: "What is the daily transfer limit?", expect: "decline" },
  { question: "I want to talk to a human agent", expect: "handoff" },
  { question: "What is the daily transfer limit?", expect: "source", source: "Transfers FAQ" },
];

const addSource = async (title: string, content: string, key = bank.apiKey) => {
  const res = await app.request("/api/knowledge/sources", { key, body: { type: "manual", title, content } });
  expect(res.status).toBe(201);
  return res.body.id as string;
};

async function waitFor<T>(check: () => Promise<T | null | undefined | false>, what: string, timeoutMs = 60_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  app = await startTestApp();
  bank = await app.tenant("Evaluation Bank");
  await addSource("Cards FAQ", cardsFaq);
  transfersSource = await addSource("Transfers FAQ", transfersFaq);
}, 120_000);
afterAll(() => app?.close());

describe("evaluation cases", () => {
  it("creates, lists, changes and deletes cases", async () => {
    const other = await app.tenant("Case Bank");
    const created = await app.request("/api/evaluations/cases", {
      key: other.apiKey,
      body: { question: "  What is the card fee? ", expect: "contains", contains: ["free"], channel: "chatapp" },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      question: "What is the card fee?",
      expect: "contains",
      contains: ["free"],
      channel: "chatapp",
      source: null,
    });
    expect(created.body.id).toMatch(/^evc_/);
    const second = await app.request("/api/evaluations/cases", {
      key: other.apiKey,
      body: { question: "Hi?", expect: "decline" },
    });
    expect(second.body.channel).toBeNull();

    const changed = await app.request(`/api/evaluations/cases/${created.body.id}`, {
      method: "PUT",
      key: other.apiKey,
      body: { expect: "source", source: "Fees FAQ" },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ question: "What is the card fee?", expect: "source", source: "Fees FAQ", contains: [] });

    const listed = await app.request("/api/evaluations/cases?limit=1&page=2", { key: other.apiKey });
    expect(listed.body).toMatchObject({ total: 2, page: 2, limit: 1 });
    expect(listed.body.cases.map((c: { id: string }) => c.id)).toEqual([second.body.id]);

    const deleted = await app.request(`/api/evaluations/cases/${second.body.id}`, { method: "DELETE", key: other.apiKey });
    expect(deleted.body).toEqual({ deleted: second.body.id });
    const again = await app.request(`/api/evaluations/cases/${second.body.id}`, { method: "DELETE", key: other.apiKey });
    expect(again.status).toBe(404);
    expect(again.body.code).toBe("NOT_FOUND");
  });

  it("answers 422 VALIDATION for a case whose expectation lacks its field or has another's", async () => {
    const invalid = [
      { question: "", expect: "decline" },
      { question: "Where is my card?", expect: "source" },
      { question: "Where is my card?", expect: "contains", contains: [] },
      { question: "Where is my card?", expect: "decline", contains: ["no"] },
      { question: "Where is my card?", expect: "handoff", source: "Cards FAQ" },
      { question: "Where is my card?", expect: "maybe" },
      { question: "Where is my card?", expect: "decline", channel: "telegraph" },
    ];
    for (const body of invalid) {
      const res = await app.request("/api/evaluations/cases", { key: bank.apiKey, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.code).toBe("VALIDATION");
    }
    const one = (await app.request("/api/evaluations/cases", { key: bank.apiKey, body: { question: "x?", expect: "decline" } }))
      .body.id;
    const put = await app.request(`/api/evaluations/cases/${one}`, {
      method: "PUT",
      key: bank.apiKey,
      body: { expect: "source" },
    });
    expect(put.status).toBe(422);
    expect(put.body.details).toEqual([{ path: "source", message: "required for source" }]);
    await app.request(`/api/evaluations/cases/${one}`, { method: "DELETE", key: bank.apiKey });
  });

  it("imports many cases at once, all or none, and replaces the set when asked", async () => {
    const other = await app.tenant("Import Cases Bank");
    const imported = await app.request("/api/evaluations/cases/import", {
      key: other.apiKey,
      body: {
        cases: [
          { question: "a?", expect: "decline" },
          { question: "b?", expect: "handoff" },
        ],
      },
    });
    expect(imported.status).toBe(200);
    expect(imported.body).toEqual({ created: 2, total: 2 });
    const bad = await app.request("/api/evaluations/cases/import", {
      key: other.apiKey,
      body: {
        cases: [
          { question: "c?", expect: "decline" },
          { question: "d?", expect: "source" },
        ],
      },
    });
    expect(bad.status).toBe(422);
    const replaced = await app.request("/api/evaluations/cases/import", {
      key: other.apiKey,
      body: { cases: [{ question: "e?", expect: "decline" }], replace: true },
    });
    expect(replaced.body).toEqual({ created: 1, total: 1 });
    const listed = await app.request("/api/evaluations/cases", { key: other.apiKey });
    expect(listed.body.cases.map((c: { question: string }) => c.question)).toEqual(["e?"]);
  });

  it("lets a viewer read cases and runs but not change or run them (403 FORBIDDEN)", async () => {
    const viewer = await app.keyFor(bank.tenantId, "viewer");
    const agent = await app.keyFor(bank.tenantId, "agent");
    expect((await app.request("/api/evaluations/cases", { key: viewer })).status).toBe(200);
    expect((await app.request("/api/evaluations/runs", { key: viewer })).status).toBe(200);
    for (const key of [viewer, agent]) {
      const create = await app.request("/api/evaluations/cases", { key, body: { question: "x?", expect: "decline" } });
      expect(create.status).toBe(403);
      expect(create.body.code).toBe("FORBIDDEN");
      expect((await app.request("/api/evaluations/runs", { key, method: "POST" })).status).toBe(403);
      expect(
        (await app.request("/api/evaluations/cases/import", { key, body: { cases: [{ question: "x?", expect: "decline" }] } }))
          .status,
      ).toBe(403);
    }
  });
});

describe("evaluation runs", () => {
  let firstRun: string;

  it("replays each case through the pipeline and reports verdicts, accuracy and decline rate, storing no conversation", async () => {
    const imported = await app.request("/api/evaluations/cases/import", { key: bank.apiKey, body: { cases, replace: true } });
    expect(imported.body.total).toBe(cases.length);
    const conversationsBefore = await app.services.db.prisma.conversation.count();
    const messagesBefore = await app.services.db.prisma.message.count();

    const run = await app.request("/api/evaluations/runs", { key: bank.apiKey, method: "POST" });
    expect(run.status).toBe(201);
    firstRun = run.body.id;
    expect(run.body).toMatchObject({ trigger: "manual", status: "completed", cases: 7, passed: 5, previous: null });
    expect(run.body.id).toMatch(/^evr_/);
    expect(run.body.accuracy).toBeCloseTo(5 / 7);
    expect(run.body.decline_rate).toBeCloseTo(1 / 7);
    const verdicts = run.body.results.map((r: { expect: string; passed: boolean }) => [r.expect, r.passed]);
    expect(verdicts).toEqual([
      ["source", true],
      ["contains", true],
      ["contains", false],
      ["decline", true],
      ["decline", false],
      ["handoff", true],
      ["source", true],
    ]);
    const [cited, , missing, declined, answered, handedOff] = run.body.results;
    expect(cited).toMatchObject({
      grounded: true,
      declined: false,
      handoff: false,
      intent: "card_arrival",
      reason: "cited Cards FAQ",
    });
    expect(cited.reply).toContain("5 working days");
    expect(cited.sources[0]).toMatchObject({ title: "Cards FAQ" });
    expect(missing).toMatchObject({ channel: "sms", reason: 'missing "48 hours"' });
    expect(declined).toMatchObject({ grounded: false, declined: true, sources: [] });
    expect(answered.reason).toBe("answered instead of declining");
    expect(handedOff).toMatchObject({ handoff: true, intent: "human_request" });

    expect(await app.services.db.prisma.conversation.count()).toBe(conversationsBefore);
    expect(await app.services.db.prisma.message.count()).toBe(messagesBefore);

    const one = await app.request(`/api/evaluations/runs/${firstRun}`, { key: bank.apiKey });
    expect(one.body.results).toEqual(run.body.results);
  });

  it("compares a run after a knowledge change with the one before: delta and the cases that changed", async () => {
    const deleted = await app.request(`/api/knowledge/sources?id=${transfersSource}`, { method: "DELETE", key: bank.apiKey });
    expect(deleted.status).toBe(200);
    const run = await app.request("/api/evaluations/runs", { key: bank.apiKey, body: { trigger: "cli" } });
    expect(run.body).toMatchObject({ trigger: "cli", status: "completed", passed: 5 });
    // Both transfer questions decline now: the decline case passes, the source case fails.
    expect(run.body.decline_rate).toBeCloseTo(3 / 7);
    const transferQuestion = "What is the daily transfer limit?";
    expect(run.body.previous).toMatchObject({ run_id: firstRun, accuracy_delta: 0 });
    expect(run.body.previous.newly_passing).toEqual([{ case_id: run.body.results[4].case_id, question: transferQuestion }]);
    expect(run.body.previous.newly_failing).toEqual([{ case_id: run.body.results[6].case_id, question: transferQuestion }]);
    // Declined: with the questions it listed instead, if any (none of them the transfer limit's, now deleted).
    expect(run.body.results[6].reason).toMatch(/^declined/);
    expect(run.body.results[6].reason).not.toContain("transfer limit");

    transfersSource = await addSource("Transfers FAQ", transfersFaq);
    const third = await app.request("/api/evaluations/runs", { key: bank.apiKey, method: "POST" });
    expect(third.body.passed).toBe(5);
    expect(third.body.previous.newly_failing).toHaveLength(1);

    const runs = await app.request("/api/evaluations/runs?limit=2", { key: bank.apiKey });
    expect(runs.body.total).toBeGreaterThanOrEqual(3);
    expect(runs.body.runs.map((r: { id: string }) => r.id)).toEqual([third.body.id, run.body.id]);
    expect(runs.body.runs[0].results).toBeUndefined();
  });

  it("does not run a knowledge change's evaluation for a tenant without cases, and runs it in the background for one with cases", async () => {
    const quiet = await app.tenant("No Cases Bank");
    await addSource("Quiet FAQ", "# Quiet FAQ\n\nNothing to see.", quiet.apiKey);
    const queued = await app.services.db.prisma.job.findMany({ where: { queue: "evaluation.run" } });
    expect(queued.map((j) => j.tenantId)).not.toContain(quiet.tenantId);

    const before = (await app.request("/api/evaluations/runs", { key: bank.apiKey })).body.total as number;
    app.startWorker();
    const started = Date.now();
    await waitFor(async () => {
      const runs = await app.request("/api/evaluations/runs", { key: bank.apiKey });
      return runs.body.total > before && runs.body.runs[0].status === "completed";
    }, "the knowledge change's evaluation run");
    const latest = (await app.request("/api/evaluations/runs?limit=1", { key: bank.apiKey })).body.runs[0];
    expect(latest).toMatchObject({ trigger: "knowledge_change", cases: 7 });
    expect(new Date(latest.started_at).getTime()).toBeGreaterThan(started - 60_000);
  });

  it("answers 404 for another tenant's run and runs only the caller's own cases", async () => {
    const other = await app.tenant("Other Evaluation Bank");
    expect((await app.request(`/api/evaluations/runs/${firstRun}`, { key: other.apiKey })).status).toBe(404);
    const empty = await app.request("/api/evaluations/runs", { key: other.apiKey, method: "POST" });
    expect(empty.body).toMatchObject({ status: "completed", cases: 0, passed: 0, accuracy: null, results: [] });
  });
});

describe("a decline that lists the questions the customer may have meant", () => {
  it("passes a decline case, and never a contains case by the words of a listed question", async () => {
    const faqBank = await app.tenant("Listing Bank");
    await addSource("Bank FAQ", newBankFaq, faqBank.apiKey);
    const question = "the limit for taking cash out";
    const listedCases = [
      { question, expect: "decline" },
      { question, expect: "contains", contains: ["withdraw from an ATM"] },
    ];
    const imported = await app.request("/api/evaluations/cases/import", { key: faqBank.apiKey, body: { cases: listedCases } });
    expect(imported.status).toBe(200);
    const run = await app.request("/api/evaluations/runs", { key: faqBank.apiKey, method: "POST" });
    expect(run.status).toBe(201);
    const [declined, contains] = run.body.results;
    expect(declined).toMatchObject({ passed: true, declined: true });
    expect(declined.reply).toContain("1. How much can I withdraw from an ATM per day?");
    expect(contains.passed).toBe(false);
    // The reason names the listed questions: the answer was one tap away.
    expect(contains.reason).toMatch(
      /^missing "withdraw from an ATM" \(declined, listing "How much can I withdraw from an ATM per day\?"(, "[^"]+")*\)$/,
    );
  });

  it("passes an urgent question's hand-off case, and its source case by the answer given while the customer waits", async () => {
    const urgentBank = await app.tenant("Urgent Bank");
    await addSource("Cards FAQ", cardsFaq, urgentBank.apiKey);
    const question = "my card was stolen, what do i do";
    const urgentCases = [
      { question, expect: "handoff" },
      { question, expect: "source", source: "Cards FAQ" },
      { question: "I want to make a formal complaint about your staff", expect: "source", source: "Cards FAQ" },
    ];
    const imported = await app.request("/api/evaluations/cases/import", { key: urgentBank.apiKey, body: { cases: urgentCases } });
    expect(imported.status).toBe(200);
    const run = await app.request("/api/evaluations/runs", { key: urgentBank.apiKey, method: "POST" });
    expect(run.status).toBe(201);
    const [handedOff, cited, unanswered] = run.body.results;
    expect(handedOff).toMatchObject({ passed: true, handoff: true, intent: "card_lost_or_stolen", reason: "handed to a human" });
    expect(cited).toMatchObject({ passed: true, handoff: true, grounded: true, reason: "handed to a human, cited Cards FAQ" });
    expect(cited.reply).toContain("tap Freeze card");
    expect(unanswered).toMatchObject({
      passed: false,
      handoff: true,
      grounded: false,
      reason: "handed to a human instead of answering",
    });
  });

  it("asks a case after its earlier messages, in one conversation: a follow-up is read with the question before it", async () => {
    const followBank = await app.tenant("Follow-up Bank");
    await addSource("Bank FAQ", newBankFaq, followBank.apiKey);
    const earlier = ["How do I replace a damaged card?"];
    const created = await app.request("/api/evaluations/cases", {
      key: followBank.apiKey,
      body: { question: "is it free?", expect: "contains", contains: ["free of charge"], earlier },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ question: "is it free?", earlier });
    const alone = await app.request("/api/evaluations/cases", {
      key: followBank.apiKey,
      body: { question: "is it free?", expect: "contains", contains: ["free of charge"] },
    });
    expect(alone.body.earlier).toEqual([]);
    const tooMany = await app.request("/api/evaluations/cases", {
      key: followBank.apiKey,
      body: { question: "is it free?", expect: "decline", earlier: ["a", "b", "c", "d", "e", "f"] },
    });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.code).toBe("VALIDATION");

    const afterHandoff = await app.request("/api/evaluations/cases", {
      key: followBank.apiKey,
      body: {
        question: "How much does an international transfer cost?",
        expect: "handoff",
        earlier: ["I want to talk to a person"],
      },
    });
    expect(afterHandoff.status).toBe(201);

    const run = await app.request("/api/evaluations/runs", { key: followBank.apiKey, method: "POST" });
    expect(run.status).toBe(201);
    const [followUp, first, waiting] = run.body.results;
    // The team has the conversation after the earlier message: the question waits for them.
    expect(waiting).toMatchObject({ passed: true, handoff: true, grounded: false, reply: waitingNotice("api") });
    expect(followUp).toMatchObject({ earlier, passed: true, grounded: true });
    expect(followUp.reply).toContain("Order a replacement card");
    expect(first).toMatchObject({ earlier: [], passed: false });
  });
});
