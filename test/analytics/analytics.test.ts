import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "../../src/db/ids.js";
import type { Services } from "../../src/services.js";
import { SeriesByChannelForTestDocument } from "../generated.js";
import { startTestApp, type TestApp } from "../helpers/app.js";

// A seeded data set whose right answers are worked out by hand below (README, Analytics, defines each figure).
let app: TestApp;
let key: string;
let ids: Record<string, string>;

const at = (iso: string) => new Date(`2026-01-${iso}Z`);
const window = "from=2026-01-05T00:00:00Z&to=2026-01-19T00:00:00Z";

interface Seeded {
  name: string;
  channel: string;
  status: string;
  createdAt: string;
  messages: Array<[role: string, time: string, content: string, metadata: Record<string, unknown>]>;
  escalation?: { reason: string; createdAt: string; firstResponseAt?: string; resolvedAt?: string };
}

const ask = (time: string, content: string, intent: string): Seeded["messages"][number] => [
  "customer",
  time,
  content,
  { intent, confidence: 0.9 },
];
const answer = (time: string, grounded: boolean, tokensUsed: number): Seeded["messages"][number] => [
  "assistant",
  time,
  grounded ? "Here is how." : "I'm not sure about that.",
  { intent: "x", agentType: grounded ? "faq" : "fallback", tokensUsed, grounded, sources: [] },
];
const notice = (time: string): Seeded["messages"][number] => ["assistant", time, "Passing you on.", { agentType: "handoff" }];

const dataSet: Seeded[] = [
  {
    name: "c1",
    channel: "widget",
    status: "open",
    createdAt: "05T10:00:00",
    messages: [ask("05T10:00:00", "How do I reset my PIN?", "pin_reset"), answer("05T10:00:01", true, 40)],
  },
  {
    name: "c2",
    channel: "chatapp",
    status: "resolved",
    createdAt: "06T09:00:00",
    messages: [
      ask("06T09:00:00", "What is the FX rate for  yen?", "fx_rates"),
      answer("06T09:00:01", false, 20),
      ask("06T09:01:00", "I want a human", "human_handoff"),
      notice("06T09:01:01"),
      ["agent", "06T09:03:00", "Sam here.", { agentId: "usr_x" }],
    ],
    escalation: {
      reason: "customer_request",
      createdAt: "06T09:01:00",
      firstResponseAt: "06T09:03:00",
      resolvedAt: "06T09:11:00",
    },
  },
  {
    name: "c3",
    channel: "chatapp",
    status: "assigned",
    createdAt: "12T14:00:00",
    messages: [ask("12T14:00:00", "what is the fx rate for yen", "fx_rates"), answer("12T14:00:01", false, 25)],
    escalation: { reason: "low_confidence", createdAt: "12T14:00:02", firstResponseAt: "12T14:05:02" },
  },
  {
    name: "c4",
    channel: "sms",
    status: "escalated",
    createdAt: "13T08:00:00",
    messages: [ask("13T08:00:00", "My card was stolen", "card_lost_or_stolen"), notice("13T08:00:01")],
    escalation: { reason: "urgent_intent", createdAt: "13T08:00:01" },
  },
  {
    name: "c5",
    channel: "widget",
    status: "open",
    createdAt: "14T12:00:00",
    messages: [ask("14T12:00:00", "Opening hours?", "opening_hours"), answer("14T12:00:01", true, 30)],
  },
  // Outside the window: the evening before it starts, and the instant it ends.
  {
    name: "before",
    channel: "widget",
    status: "escalated",
    createdAt: "04T23:59:59",
    messages: [ask("04T23:59:59", "What is the FX rate for yen?", "fx_rates"), answer("04T23:59:59.500", false, 99)],
    escalation: { reason: "low_confidence", createdAt: "04T23:59:59.600" },
  },
  {
    name: "after",
    channel: "widget",
    status: "open",
    createdAt: "19T00:00:00",
    messages: [ask("19T00:00:00", "Hello", "greeting"), answer("19T00:00:01", true, 99)],
  },
];

/** Writes the conversations as the pipeline and escalations would have; returns their ids by name. */
async function seed(services: Services, tenantId: string, set: Seeded[]): Promise<Record<string, string>> {
  const prisma = services.db.prisma;
  const seeded: Record<string, string> = {};
  for (const c of set) {
    const id = newId("conv");
    seeded[c.name] = id;
    await prisma.conversation.create({
      data: { id, tenantId, channel: c.channel, status: c.status, messageCount: c.messages.length, createdAt: at(c.createdAt) },
    });
    await prisma.message.createMany({
      data: c.messages.map(([role, time, content, metadata]) => ({
        id: newId("msg"),
        tenantId,
        conversationId: id,
        role,
        content,
        metadata: metadata as never,
        createdAt: at(time),
      })),
    });
    if (c.escalation) {
      const e = c.escalation;
      await prisma.escalation.create({
        data: {
          id: newId("esc"),
          tenantId,
          conversationId: id,
          reason: e.reason,
          status: e.resolvedAt ? "resolved" : e.firstResponseAt ? "assigned" : "open",
          createdBy: "ai",
          createdAt: at(e.createdAt),
          firstResponseAt: e.firstResponseAt ? at(e.firstResponseAt) : null,
          resolvedAt: e.resolvedAt ? at(e.resolvedAt) : null,
        },
      });
    }
  }
  return seeded;
}

beforeAll(async () => {
  app = await startTestApp();
  const bank = await app.tenant("Analytics Bank");
  key = bank.apiKey;
  ids = await seed(app.services, bank.tenantId, dataSet);
  // Another tenant's conversations in the same window count for nobody else.
  const other = await app.tenant("Other Bank");
  await seed(app.services, other.tenantId, dataSet.slice(0, 4));
});
afterAll(() => app?.close());

const analytics = async (query: string) => {
  const res = await app.request(`/api/analytics?${query}`, { key });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};

describe("GET /api/analytics", () => {
  it("counts the window's conversations and messages, escalations and their reasons", async () => {
    const figures = await analytics(window);
    expect(figures).toMatchObject({
      from: "2026-01-05T00:00:00.000Z",
      to: "2026-01-19T00:00:00.000Z",
      channel: null,
      granularity: "day",
      conversations: {
        total: 5,
        by_channel: { chatapp: 2, widget: 2, sms: 1 },
        by_status: { open: 2, resolved: 1, assigned: 1, escalated: 1 },
      },
      messages: { total: 13, customer: 6, ai: 6, agent: 1 },
      // c1 and c5 were never escalated; c2, c3 and c4 were.
      ai_resolved: 2,
      ai_resolution_rate: 0.4,
      escalated: 3,
      escalation_rate: 0.6,
      escalations: { total: 3, by_reason: { customer_request: 1, low_confidence: 1, urgent_intent: 1 } },
      tokens_used: 115,
    });
  });

  it("measures first human response and resolution times as median and p90", async () => {
    const figures = await analytics(window);
    // First responses: 120 s (c2) and 300 s (c3); interpolated median 210 s, p90 120 + 0.9 × 180 = 282 s.
    expect(figures.first_response_time).toEqual({ count: 2, median_seconds: 210, p90_seconds: 282 });
    // Only c2's escalation is resolved: 10 minutes.
    expect(figures.resolution_time).toEqual({ count: 1, median_seconds: 600, p90_seconds: 600 });
  });

  it("ranks intents, grades knowledge coverage and lists the unanswered questions", async () => {
    const figures = await analytics(window);
    expect(figures.top_intents).toEqual([
      { intent: "fx_rates", count: 2 },
      { intent: "card_lost_or_stolen", count: 1 },
      { intent: "human_handoff", count: 1 },
      { intent: "opening_hours", count: 1 },
      { intent: "pin_reset", count: 1 },
    ]);
    // Four graded AI answers (hand-off notices are not graded): c1 and c5 grounded, c2 and c3 not.
    expect(figures.knowledge_coverage).toEqual({ answers: 4, grounded: 2, rate: 0.5 });
    expect(figures.unanswered_questions).toEqual([
      {
        question: "what is the fx rate for yen",
        count: 2,
        last_asked_at: "2026-01-12T14:00:00.000Z",
        conversation_id: ids.c3,
      },
    ]);
  });

  it("gives a series by day and by week (weeks start on Monday, UTC), empty buckets included", async () => {
    const daily = await analytics(window);
    expect(daily.series).toHaveLength(14);
    expect(daily.series[0]).toEqual({
      start: "2026-01-05T00:00:00.000Z",
      conversations: 1,
      escalations: 0,
      messages: { customer: 1, ai: 1, agent: 0 },
      tokens_used: 40,
    });
    expect(daily.series[1]).toMatchObject({ conversations: 1, escalations: 1, messages: { customer: 2, ai: 2, agent: 1 } });
    expect(daily.series[2]).toMatchObject({ conversations: 0, escalations: 0, tokens_used: 0 });
    const weekly = await analytics(`${window}&granularity=week`);
    expect(
      weekly.series.map((b: { start: string; conversations: number; escalations: number }) => [
        b.start,
        b.conversations,
        b.escalations,
      ]),
    ).toEqual([
      ["2026-01-05T00:00:00.000Z", 2, 1],
      ["2026-01-12T00:00:00.000Z", 3, 2],
    ]);
  });

  it("splits each bucket's conversations by channel (GraphQL)", async () => {
    const res = await app.graphql(
      SeriesByChannelForTestDocument,
      { from: "2026-01-05T00:00:00Z", to: "2026-01-19T00:00:00Z", granularity: "week" },
      key,
    );
    const series = res.data!.analytics.series;
    for (const bucket of series) {
      expect(bucket.conversationsByChannel.reduce((total, c) => total + c.count, 0)).toBe(bucket.conversations);
    }
    const channels = new Set(dataSet.map((c) => c.channel));
    expect(series.flatMap((b) => b.conversationsByChannel.map((c) => c.key)).every((c) => channels.has(c))).toBe(true);
  });

  it("narrows every figure to one channel", async () => {
    const figures = await analytics(`${window}&channel=chatapp`);
    expect(figures).toMatchObject({
      channel: "chatapp",
      conversations: { total: 2, by_channel: { chatapp: 2 } },
      messages: { total: 7, customer: 3, ai: 3, agent: 1 },
      ai_resolution_rate: 0,
      escalation_rate: 1,
      escalations: { total: 2, by_reason: { customer_request: 1, low_confidence: 1 } },
      knowledge_coverage: { answers: 2, grounded: 0, rate: 0 },
      tokens_used: 45,
      first_response_time: { count: 2 },
    });
    expect(figures.unanswered_questions[0]).toMatchObject({ question: "what is the fx rate for yen", count: 2 });
    const none = await analytics(`${window}&channel=voice`);
    expect(none).toMatchObject({ conversations: { total: 0 }, ai_resolution_rate: null, knowledge_coverage: { rate: null } });
  });

  it("defaults to the last 30 days", async () => {
    const figures = await analytics("");
    expect(Date.parse(figures.to) - Date.parse(figures.from)).toBe(30 * 24 * 3600_000);
    expect(Math.abs(Date.parse(figures.to) - Date.now())).toBeLessThan(60_000);
  });

  it.each([
    ["from after to", "from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z"],
    ["a window over 366 days", "from=2024-01-01T00:00:00Z&to=2026-01-01T00:00:00Z"],
    ["an unknown granularity", "granularity=month"],
    ["an unknown channel", "channel=fax"],
    ["a date that is not ISO 8601", "from=yesterday"],
  ])("answers 422 VALIDATION for %s", async (_name, query) => {
    const res = await app.request(`/api/analytics?${query}`, { key });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("VALIDATION");
  });
});

describe("AI resolution", () => {
  it("does not count a conversation the AI left on a decline as resolved by the AI", async () => {
    const bank = await app.tenant("Declining Bank");
    await seed(app.services, bank.tenantId, [
      {
        name: "answered",
        channel: "widget",
        status: "open",
        createdAt: "20T10:00:00",
        messages: [ask("20T10:00:00", "How do I block my card?", "card"), answer("20T10:00:01", true, 30)],
      },
      {
        name: "declined",
        channel: "widget",
        status: "open",
        createdAt: "20T11:00:00",
        messages: [ask("20T11:00:00", "Do you sell gold coins?", "other"), answer("20T11:00:01", false, 10)],
      },
      {
        name: "declined, then answered",
        channel: "widget",
        status: "open",
        createdAt: "20T12:00:00",
        messages: [
          ask("20T12:00:00", "Do you sell gold coins?", "other"),
          answer("20T12:00:01", false, 10),
          ask("20T12:01:00", "How do I block my card?", "card"),
          answer("20T12:01:01", true, 30),
        ],
      },
    ]);
    const res = await app.request("/api/analytics?from=2026-01-20T00:00:00Z&to=2026-01-21T00:00:00Z", { key: bank.apiKey });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ conversations: { total: 3 }, escalated: 0, ai_resolved: 2 });
    expect(res.body.ai_resolution_rate).toBeCloseTo(2 / 3);
  });
});
