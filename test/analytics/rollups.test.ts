import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { rollupQueue } from "../../src/analytics/rollups.js";
import { enforceRetention } from "../../src/retention/enforce.js";
import { startTestApp, type TestApp } from "../helpers/app.js";

// The report sums whole UTC days from the rollups and reads the partial days at the window's ends live: every
// figure must come out as computed from the raw rows, here by the README's definitions worked out in plain code,
// whatever the window's ends, its channel and granularity, and after the data changed since it was rolled up.
let app: TestApp;
let key: string;
let tenantId: string;

const dayMs = 86_400_000;
const channels = ["widget", "chatapp", "sms"];
const statuses = ["open", "resolved", "closed", "escalated", "assigned"];
const reasons = ["customer_request", "low_confidence", "urgent_intent"];
// Variants of the same questions: the unanswered list merges them (case, spaces, end punctuation).
const questions = [
  ["How do I reset my PIN?", "how do i reset my pin", "How do I  reset my PIN ?"],
  ["What is the FX rate for yen?", "what is the fx rate for yen!"],
  ["Can I open an account online?", "can i open an account online..."],
  ["Where is my card?"],
  ["Why was I charged twice?", "why was i charged twice"],
];
// The first seeded day is a Monday; conversations start at times that put messages on either side of midnight.
const firstDay = Date.parse("2026-02-02T00:00:00Z");
const startTimes = [0, 9 * 3_600_000 + 15 * 60_000, dayMs - 45_000, dayMs - 1, 13 * 3_600_000 + 1];

/** A deterministic sequence (a linear congruential generator): the same varied data on every run. */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

/** Conversations over ten days, written as the pipeline, escalations and feedback would have. */
async function seedHistory(): Promise<void> {
  const rnd = random(7);
  const pick = <T>(list: T[]) => list[Math.floor(rnd() * list.length)]!;
  const prisma = app.services.db.prisma;
  for (let i = 0; i < 60; i++) {
    const id = `conv_roll_${i}`;
    const channel = channels[i % 3]!;
    // Never two at the same instant: the latest conversation a question was asked in is then one.
    const start = firstDay + (i % 10) * dayMs + startTimes[i % startTimes.length]! + Math.floor(i / 10);
    const messages: Array<{ role: string; content: string; metadata: object; at: number }> = [];
    let t = start;
    let listed = false;
    for (let turn = 0; turn < 1 + (i % 3); turn++) {
      const question = pick(questions);
      messages.push({ role: "customer", content: pick(question), metadata: { intent: `intent_${i % 4}` }, at: t });
      t += 1_000 + Math.floor(rnd() * 60_000);
      const grounded = rnd() > 0.4;
      // Some declines list questions, and some answers after one are to a question chosen from it.
      const chosen = grounded && listed && rnd() > 0.3;
      listed = !grounded && rnd() > 0.5;
      messages.push({
        role: "assistant",
        content: grounded ? "Here is how." : "I'm not sure about that.",
        metadata: {
          intent: `intent_${i % 4}`,
          agentType: "faq",
          grounded,
          tokensUsed: 10 + Math.floor(rnd() * 90),
          ...(listed && { suggestions: ["How do I order a card?"] }),
          ...(chosen && { chosen }),
        },
        at: t,
      });
      t += 1_000 + Math.floor(rnd() * 60_000);
    }
    if (i % 5 === 0)
      messages.push({ role: "assistant", content: "Passing you on.", metadata: { agentType: "handoff" }, at: t++ });
    if (i % 7 === 0) messages.push({ role: "agent", content: "Sam here.", metadata: { agentId: "usr_x" }, at: t++ });
    await prisma.conversation.create({
      data: {
        id,
        tenantId,
        channel,
        status: pick(statuses),
        customerId: `customer_${i}`,
        messageCount: messages.length,
        createdAt: new Date(start),
        updatedAt: new Date(t),
      },
    });
    await prisma.message.createMany({
      data: messages.map((m, n) => ({
        id: `msg_roll_${i}_${n}`,
        tenantId,
        conversationId: id,
        role: m.role,
        content: m.content,
        metadata: m.metadata,
        createdAt: new Date(m.at),
      })),
    });
    if (i % 4 === 0) {
      // Some escalations come the day after their conversation started.
      const at = start + 30_000 + (i % 8 === 0 ? dayMs : 0);
      await prisma.escalation.create({
        data: {
          id: `esc_roll_${i}`,
          tenantId,
          conversationId: id,
          reason: pick(reasons),
          status: "open",
          createdBy: "ai",
          createdAt: new Date(at),
          outOfHours: rnd() > 0.5,
        },
      });
    }
    const answer = messages.findIndex((m) => m.role === "assistant");
    if (i % 3 !== 1) {
      await prisma.messageFeedback.create({
        data: {
          id: `fb_roll_${i}`,
          tenantId,
          messageId: `msg_roll_${i}_${answer}`,
          conversationId: id,
          channel,
          rating: rnd() > 0.3 ? "up" : "down",
          source: "api",
          createdAt: new Date(messages[answer]!.at + 50_000),
        },
      });
    }
    if (i % 2 === 0) {
      await prisma.satisfactionSurvey.create({
        data: {
          id: `srv_roll_${i}`,
          tenantId,
          conversationId: id,
          channel,
          score: i % 6 === 0 ? null : 1 + (i % 5),
          askedAt: new Date(t),
          expiresAt: new Date(t + dayMs),
        },
      });
    }
  }
}

interface Raw {
  conversations: Array<{ id: string; channel: string; status: string; created_at: Date }>;
  messages: Array<{
    conversation_id: string;
    role: string;
    content: string;
    intent: string | null;
    grounded: boolean | null;
    tokens_used: number | null;
    metadata: { suggestions?: string[]; chosen?: boolean };
    created_at: Date;
  }>;
  escalations: Array<{ conversation_id: string; reason: string; out_of_hours: boolean; created_at: Date }>;
  feedback: Array<{ channel: string; rating: string; created_at: Date }>;
  surveys: Array<{ channel: string; score: number | null; asked_at: Date }>;
}

async function raw(): Promise<Raw> {
  const sql = app.services.db.sql;
  const [conversations, messages, escalations, feedback, surveys] = await Promise.all([
    sql.query<Raw["conversations"][number]>("SELECT id, channel, status, created_at FROM conversations WHERE tenant_id = $1", [
      tenantId,
    ]),
    sql.query<Raw["messages"][number]>(
      "SELECT conversation_id, role, content, intent, grounded, tokens_used, metadata, created_at FROM messages WHERE tenant_id = $1",
      [tenantId],
    ),
    sql.query<Raw["escalations"][number]>(
      "SELECT conversation_id, reason, out_of_hours, created_at FROM escalations WHERE tenant_id = $1",
      [tenantId],
    ),
    sql.query<Raw["feedback"][number]>("SELECT channel, rating, created_at FROM message_feedback WHERE tenant_id = $1", [
      tenantId,
    ]),
    sql.query<Raw["surveys"][number]>("SELECT channel, score, asked_at FROM satisfaction_surveys WHERE tenant_id = $1", [
      tenantId,
    ]),
  ]);
  return { conversations, messages, escalations, feedback, surveys };
}

type Counts = Record<string, number>;
const countBy = <R>(rows: R[], key: (r: R) => string | null, value: (r: R) => number = () => 1): Counts => {
  const out: Counts = {};
  for (const r of rows) {
    const k = key(r);
    if (k !== null) out[k] = (out[k] ?? 0) + value(r);
  }
  return out;
};
const total = <R>(rows: R[], value: (r: R) => number = () => 1) => rows.reduce((s, r) => s + value(r), 0);
const ratio = (part: number, whole: number) => (whole ? part / whole : null);

/** The README's figures (all but the human response times, read from the escalations either way) from the raw rows. */
function expected(data: Raw, from: Date, to: Date, channel: string | null, granularity: "day" | "week") {
  const inWindow = (at: Date) => at >= from && at < to;
  const channelOf = new Map(data.conversations.map((c) => [c.id, c.channel]));
  const ofChannel = (conversationId: string) => !channel || channelOf.get(conversationId) === channel;
  const conversations = data.conversations.filter((c) => inWindow(c.created_at) && (!channel || c.channel === channel));
  const messages = data.messages.filter((m) => inWindow(m.created_at) && ofChannel(m.conversation_id));
  const escalations = data.escalations.filter((e) => inWindow(e.created_at) && ofChannel(e.conversation_id));
  const feedback = data.feedback.filter((f) => inWindow(f.created_at) && (!channel || f.channel === channel));
  const surveys = data.surveys.filter((s) => inWindow(s.asked_at) && (!channel || s.channel === channel));
  const everEscalated = new Set(data.escalations.map((e) => e.conversation_id));
  const lastGraded = (id: string) =>
    data.messages
      .filter((m) => m.conversation_id === id && m.role === "assistant" && m.grounded !== null)
      .sort((a, b) => +b.created_at - +a.created_at)[0];
  const escalated = conversations.filter((c) => everEscalated.has(c.id)).length;
  const declined = conversations.filter((c) => !everEscalated.has(c.id) && lastGraded(c.id)?.grounded === false).length;
  const roles = (rows: Raw["messages"], role: string) => rows.filter((m) => m.role === role).length;
  const graded = messages.filter((m) => m.grounded !== null);
  const grounded = graded.filter((m) => m.grounded).length;
  const offered = messages.filter((m) => m.role === "assistant" && m.metadata.suggestions).length;
  const chosen = messages.filter((m) => m.role === "assistant" && m.metadata.chosen === true).length;
  const normalise = (q: string) =>
    q
      .replace(/\s+/g, " ")
      .trim()
      .toLowerCase()
      .replace(/[\s?!.]+$/, "");
  const asked = new Map<string, { count: number; last: Date; conversation: string }>();
  for (const a of messages.filter((m) => m.role === "assistant" && m.grounded === false)) {
    const q = data.messages
      .filter((m) => m.conversation_id === a.conversation_id && m.role === "customer" && m.created_at <= a.created_at)
      .sort((x, y) => +y.created_at - +x.created_at)[0]!;
    const key = normalise(q.content);
    const seen = asked.get(key);
    if (!seen) asked.set(key, { count: 1, last: q.created_at, conversation: q.conversation_id });
    else {
      seen.count++;
      if (q.created_at > seen.last) Object.assign(seen, { last: q.created_at, conversation: q.conversation_id });
    }
  }
  const feedbackFigures = (thumbs: Raw["feedback"], asks: Raw["surveys"]) => {
    const up = thumbs.filter((f) => f.rating === "up").length;
    const down = thumbs.filter((f) => f.rating === "down").length;
    const answered = asks.filter((s) => s.score !== null);
    return {
      up,
      down,
      rate: ratio(up, up + down),
      satisfaction: {
        asked: asks.length,
        answered: answered.length,
        average: ratio(
          total(answered, (s) => s.score!),
          answered.length,
        ),
      },
    };
  };
  const step = granularity === "week" ? 7 * dayMs : dayMs;
  // Buckets from UTC days, and weeks from a Monday (2026-02-02 is one).
  const bucketOf = (at: Date) => firstDay + Math.floor((+at - firstDay) / step) * step;
  const series = [];
  for (let start = bucketOf(from); start < +to; start += step) {
    const inBucket = <R>(rows: R[], at: (r: R) => Date) => rows.filter((r) => bucketOf(at(r)) === start);
    const bucketMessages = inBucket(messages, (m) => m.created_at);
    series.push({
      start: new Date(start).toISOString(),
      conversations: inBucket(conversations, (c) => c.created_at).length,
      escalations: inBucket(escalations, (e) => e.created_at).length,
      messages: {
        customer: roles(bucketMessages, "customer"),
        ai: roles(bucketMessages, "assistant"),
        agent: roles(bucketMessages, "agent"),
      },
      tokens_used: total(bucketMessages, (m) => m.tokens_used ?? 0),
    });
  }
  const ranked = (counts: Counts) => Object.entries(counts).sort(([ka, a], [kb, b]) => b - a || ka.localeCompare(kb));
  return {
    conversations: {
      total: conversations.length,
      by_channel: countBy(conversations, (c) => c.channel),
      by_status: countBy(conversations, (c) => c.status),
    },
    messages: {
      total: messages.length,
      customer: roles(messages, "customer"),
      ai: roles(messages, "assistant"),
      agent: roles(messages, "agent"),
    },
    ai_resolved: conversations.length - escalated - declined,
    ai_resolution_rate: ratio(conversations.length - escalated - declined, conversations.length),
    escalated,
    escalation_rate: ratio(escalated, conversations.length),
    escalations: {
      total: escalations.length,
      by_reason: countBy(escalations, (e) => e.reason),
      out_of_hours: escalations.filter((e) => e.out_of_hours).length,
    },
    top_intents: ranked(countBy(messages, (m) => (m.role === "customer" ? m.intent : null)))
      .slice(0, 10)
      .map(([intent, count]) => ({ intent, count })),
    knowledge_coverage: { answers: graded.length, grounded, rate: ratio(grounded, graded.length) },
    listed_questions: { offered, chosen, rate: ratio(chosen, offered) },
    unanswered_questions: [...asked]
      .sort(([, a], [, b]) => b.count - a.count || +b.last - +a.last)
      .slice(0, 20)
      .map(([question, a]) => ({
        question,
        count: a.count,
        last_asked_at: a.last.toISOString(),
        conversation_id: a.conversation,
      })),
    tokens_used: total(messages, (m) => m.tokens_used ?? 0),
    feedback: {
      ...feedbackFigures(feedback, surveys),
      by_channel: Object.fromEntries(
        [...new Set([...feedback, ...surveys].map((r) => r.channel))].map((c) => [
          c,
          feedbackFigures(
            feedback.filter((f) => f.channel === c),
            surveys.filter((s) => s.channel === c),
          ),
        ]),
      ),
    },
    series,
  };
}

const iso = (ms: number) => new Date(ms).toISOString();
const tomorrow = () => Math.ceil(Date.now() / dayMs) * dayMs;

/** Windows with whole days, ends in the middle of a day, within one day, across one midnight; each by channel too. */
const windows = (): Array<[from: number, to: number, granularity: "day" | "week"]> => [
  [firstDay, firstDay + 10 * dayMs, "day"],
  [firstDay + dayMs + 12.5 * 3_600_000, firstDay + 7 * dayMs + 6 * 3_600_000, "day"],
  [firstDay + 2 * dayMs + 10 * 3_600_000, firstDay + 2 * dayMs + 20 * 3_600_000, "day"],
  [firstDay + 4 * dayMs - 1_000, firstDay + 4 * dayMs + 500, "day"],
  [firstDay - 3 * dayMs, firstDay + 13 * dayMs + 1, "week"],
  // Up to now (today live), and up to tomorrow (today rolled up).
  [firstDay, Date.now(), "week"],
  [firstDay + 3 * dayMs + 1, tomorrow(), "week"],
];

async function expectSameAsRaw(): Promise<void> {
  const data = await raw();
  for (const [from, to, granularity] of windows()) {
    for (const channel of [null, "chatapp"]) {
      const query = `from=${iso(from)}&to=${iso(to)}&granularity=${granularity}${channel ? `&channel=${channel}` : ""}`;
      const res = await app.request(`/api/analytics?${query}`, { key });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const { first_response_time, resolution_time, from: f, to: t, channel: c, granularity: g, ...figures } = res.body;
      expect(figures, query).toEqual(expected(data, new Date(from), new Date(to), channel, granularity));
    }
  }
}

beforeAll(async () => {
  // Each comparison makes fourteen reports.
  app = await startTestApp({ RATE_LIMIT_MAX: "1000" });
  const bank = await app.tenant("Rollup Bank");
  key = bank.apiKey;
  tenantId = bank.tenantId;
  await seedHistory();
  // Another tenant's data in the same days counts for nobody else.
  const other = await app.tenant("Other Rollup Bank");
  await app.services.db.prisma.conversation.create({
    data: { id: "conv_roll_other", tenantId: other.tenantId, channel: "chatapp", createdAt: new Date(firstDay + 5_000) },
  });
});
afterAll(() => app?.close());

describe("analytics rollups", () => {
  it("give the figures of the raw rows, rolled up on first use, for any window's ends, channel and granularity", async () => {
    await expectSameAsRaw();
    // Read twice: the second time from the rollups alone (the first rolled up every stale day read).
    const [stale] = await app.services.db.sql.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM analytics_stale_days WHERE tenant_id = $1 AND day < $2",
      [tenantId, new Date(firstDay + 11 * dayMs)],
    );
    expect(stale!.n).toBe(0);
    await expectSameAsRaw();
    // The history holds every figure: none of the comparisons above is of zeros alone.
    const all = await app.request(`/api/analytics?from=${iso(firstDay)}&to=${iso(firstDay + 10 * dayMs)}`, { key });
    expect(all.body.listed_questions.chosen).toBeGreaterThan(0);
    expect(all.body.listed_questions.offered).toBeGreaterThan(all.body.listed_questions.chosen);
  });

  it("follow what changed after the days were rolled up: replies, escalations, their resolution, ratings", async () => {
    await expectSameAsRaw();
    // Today's traffic through the pipeline.
    const chat = await app.request("/api/chat", { key, body: { message: "How do I reset my PIN?" } });
    expect(chat.status, JSON.stringify(chat.body)).toBe(200);
    await expectSameAsRaw();
    const sql = app.services.db.sql;
    const [open] = await sql.query<{ id: string }>(
      `SELECT id FROM conversations c WHERE tenant_id = $1 AND status = 'open' AND id LIKE 'conv_roll_%'
          AND NOT EXISTS (SELECT 1 FROM escalations e WHERE e.conversation_id = c.id) ORDER BY created_at LIMIT 1`,
      [tenantId],
    );
    // An old conversation escalated now: it counts as escalated on the day it started.
    const escalated = await app.request("/api/escalations", { key, body: { conversation_id: open!.id } });
    expect(escalated.status, JSON.stringify(escalated.body)).toBe(201);
    await expectSameAsRaw();
    const [waiting] = await sql.query<{ id: string }>(
      `SELECT e.id FROM escalations e JOIN conversations c ON c.id = e.conversation_id
        WHERE e.tenant_id = $1 AND e.id LIKE 'esc_roll_%' AND c.status IN ('escalated', 'assigned') ORDER BY e.created_at LIMIT 1`,
      [tenantId],
    );
    // An old escalation resolved: its conversation's status changes.
    const resolved = await app.request("/api/escalations", { key, method: "PUT", body: { id: waiting!.id, status: "resolved" } });
    expect(resolved.status, JSON.stringify(resolved.body)).toBe(200);
    await expectSameAsRaw();
    // A late declining answer in an old conversation: it now ends on a decline.
    await app.services.db.prisma.message.create({
      data: {
        id: "msg_roll_late",
        tenantId,
        conversationId: "conv_roll_1",
        role: "assistant",
        content: "I'm not sure about that.",
        metadata: { intent: "intent_1", agentType: "faq", grounded: false, tokensUsed: 7 },
        createdAt: new Date(firstDay + 9 * dayMs + 3_600_000),
      },
    });
    await expectSameAsRaw();
    // A rating given and then changed.
    for (const rating of ["down", "up"]) {
      const rated = await app.request("/api/messages/msg_roll_1_1/feedback", { key, body: { rating } });
      expect(rated.status, JSON.stringify(rated.body)).toBe(200);
    }
    await expectSameAsRaw();
  });

  it("forget erased and expired conversations, their questions' words included", async () => {
    await expectSameAsRaw();
    const erased = await app.request("/api/erasures", { key, body: { channel: "widget", customer_id: "customer_0" } });
    expect(erased.status, JSON.stringify(erased.body)).toBeLessThan(300);
    await app.services.db.prisma.tenant.update({ where: { id: tenantId }, data: { settings: { retention: { messages: 1 } } } });
    // Transcripts last active more than a day before the seeded fourth day go.
    const run = await enforceRetention(app.services, tenantId, firstDay + 4 * dayMs);
    expect(run?.messages?.conversations).toBeGreaterThan(0);
    // Before any report: no rolled-up question of a removed conversation is left.
    const left = await app.services.db.sql.query<{ conversation_id: string }>(
      `SELECT q.conversation_id FROM analytics_question_days q
        WHERE q.tenant_id = $1 AND NOT EXISTS (SELECT 1 FROM conversations c WHERE c.id = q.conversation_id)`,
      [tenantId],
    );
    expect(left).toEqual([]);
    await expectSameAsRaw();
  });

  it("are rolled up by the worker for every tenant, whether or not anyone reads them, and the next run booked", async () => {
    await app.services.db.prisma.message.create({
      data: {
        id: "msg_roll_worker",
        tenantId,
        conversationId: "conv_roll_2",
        role: "customer",
        content: "One more thing",
        createdAt: new Date(firstDay + 2 * dayMs + 7_200_000),
      },
    });
    const stale = async () =>
      (await app.services.db.sql.query<{ n: number }>("SELECT count(*)::int AS n FROM analytics_stale_days"))[0]!.n;
    expect(await stale()).toBeGreaterThan(0);
    const run = await app.services.jobs.enqueue({ queue: rollupQueue });
    app.startWorker();
    await vi.waitFor(
      async () => {
        const job = await app.services.db.prisma.job.findUniqueOrThrow({ where: { id: run } });
        expect(job.status).toBe("completed");
      },
      { timeout: 60_000, interval: 100 },
    );
    expect(await stale()).toBe(0);
    expect(await app.services.db.prisma.job.count({ where: { queue: rollupQueue, status: "pending" } })).toBe(1);
    await expectSameAsRaw();
  });
});
