import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AnswerInput } from "../../src/ai/engine.js";
import { warmPipeline } from "../../src/pipeline/warm-up.js";
import { newBankFaq } from "../fixtures/new-bank-faq.js";
import { startTestApp, type TestApp } from "../helpers/app.js";

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});

afterAll(async () => {
  await app?.close();
});

/** What the service's engine is asked while `work` runs, and whether `fail` makes each answer throw. */
async function answersAsked(work: () => Promise<void>, fail = false): Promise<AnswerInput[]> {
  const { engine } = app.services;
  const answer = engine.answer.bind(engine);
  const asked: AnswerInput[] = [];
  engine.answer = async (input, onDelta) => {
    asked.push(input);
    if (fail) throw new Error("the engine broke");
    return answer(input, onDelta);
  };
  try {
    await work();
  } finally {
    engine.answer = answer;
  }
  return asked;
}

const stored = async () => ({
  conversations: await app.services.db.prisma.conversation.count(),
  messages: await app.services.db.prisma.message.count(),
});

describe("warming the pipeline at start", () => {
  it("does nothing without a tenant", async () => {
    expect(await app.services.db.prisma.tenant.count()).toBe(0);
    expect(await answersAsked(() => warmPipeline(app.services))).toEqual([]);
  });

  it("answers a question of the first tenant from its knowledge by the pipeline's stages, storing nothing", async () => {
    const bank = await app.tenant("Warm Bank");
    const added = await app.request("/api/knowledge/sources", {
      key: bank.apiKey,
      body: { type: "manual", title: "Bank FAQ", content: newBankFaq },
    });
    expect(added.status).toBe(201);
    const before = await stored();
    const asked = await answersAsked(() => warmPipeline(app.services));
    expect(asked).toHaveLength(1);
    expect(asked[0]!.context.map((c) => c.sourceTitle)).toContain("Bank FAQ");
    expect(await stored()).toEqual(before);
  });

  it("has the first tenant's term index built before the pipeline runs", async () => {
    const { termIndex } = app.services;
    const [first] = await app.services.db.prisma.tenant.findMany({ orderBy: { createdAt: "asc" }, take: 1 });
    const steps: string[] = [];
    const terms = termIndex.terms.bind(termIndex);
    const settled = termIndex.settled.bind(termIndex);
    termIndex.terms = (tenantId) => {
      steps.push(`terms ${tenantId}`);
      return terms(tenantId);
    };
    termIndex.settled = async () => {
      await settled();
      steps.push("settled");
    };
    try {
      const asked = await answersAsked(() => warmPipeline(app.services));
      expect(asked).toHaveLength(1);
    } finally {
      termIndex.terms = terms;
      termIndex.settled = settled;
    }
    expect(steps.slice(0, 2)).toEqual([`terms ${first!.id}`, "settled"]);
  });

  it("lets the service start when a stage fails", async () => {
    const asked = await answersAsked(() => warmPipeline(app.services), true);
    expect(asked).toHaveLength(1);
  });
});
