import { type FakeProviders, startFakeProviders } from "../fakes/providers.js";
import type { TestApp } from "../helpers/app.js";
import { benchDatabases, fixed, latencies, noteRow, numberFrom, percentile, startBenchApp, thousands } from "./harness.js";

const conversations = numberFrom("BENCH_ANALYTICS_CONVERSATIONS", 100_000);
const messagesEach = numberFrom("BENCH_ANALYTICS_MESSAGES_EACH", 10);
const spanDays = numberFrom("BENCH_ANALYTICS_DAYS", 90);
const requests = numberFrom("BENCH_ANALYTICS_REQUESTS", 30);
const replies = numberFrom("BENCH_ANALYTICS_REPLIES", 50);
const dayMs = 24 * 3600_000;
// Issue 14: every window, the whole 90 days included (flat in the window's length).
const targetMs = 100;
const phoneNumberId = "240000000000001";

// Ten channels, twelve intents, forty questions: enough variety for every GROUP BY to have real work.
const seedSql = (table: "conversations" | "messages" | "escalations") =>
  ({
    conversations: `
      INSERT INTO conversations (id, tenant_id, channel, status, customer_id, message_count, created_at, updated_at)
      SELECT 'conv_bench' || g, $1,
             (ARRAY['widget','chatapp','sms','ussd','voice','botmsg','messenger','instagram','microblog','teamchat'])[1 + g % 10],
             CASE WHEN g % 10 = 0 THEN (ARRAY['escalated','assigned','resolved'])[1 + (g / 10) % 3]
                  ELSE (ARRAY['open','resolved','closed'])[1 + g % 3] END,
             'customer' || g, $3,
             now() - make_interval(secs => $4 * 86400 * (1 - g::float8 / $2)),
             now() - make_interval(secs => $4 * 86400 * (1 - g::float8 / $2))
        FROM generate_series(1, $2) g`,
    // Customer and AI messages alternate; an escalated conversation ends with agent replies. One AI answer in
    // seven is not grounded, so the unanswered questions have thousands of rows to group.
    messages: `
      INSERT INTO messages (id, tenant_id, conversation_id, role, content, metadata, created_at)
      SELECT 'msg_bench' || g || '_' || i, $1, 'conv_bench' || g,
             CASE WHEN i % 2 = 0 THEN 'customer' WHEN g % 10 = 0 AND i >= $3 - 3 THEN 'agent' ELSE 'assistant' END,
             CASE WHEN i % 2 = 0 THEN 'Question number ' || ((g * 7 + i) % 40) || ' about my account?' ELSE 'An answer.' END,
             CASE WHEN i % 2 = 0 THEN jsonb_build_object('intent', 'intent_' || ((g + i) % 12), 'confidence', 0.8)
                  WHEN g % 10 = 0 AND i >= $3 - 3 THEN jsonb_build_object('agentId', 'usr_bench')
                  ELSE jsonb_build_object('intent', 'intent_' || ((g + i) % 12), 'agentType', 'faq',
                                          'tokensUsed', 50 + (g + i) % 100, 'grounded', (g + i) % 7 <> 0) END,
             now() - make_interval(secs => $4 * 86400 * (1 - g::float8 / $2)) + make_interval(secs => i * 20)
        FROM generate_series(1, $2) g, generate_series(0, $3 - 1) i`,
    escalations: `
      INSERT INTO escalations (id, tenant_id, conversation_id, reason, priority, status, created_by,
                               created_at, updated_at, first_response_at, resolved_at)
      SELECT 'esc_bench' || g, $1, 'conv_bench' || g,
             (ARRAY['customer_request','urgent_intent','low_confidence','engine_failure'])[1 + (g / 10) % 4], 'normal',
             (ARRAY['open','assigned','resolved'])[1 + (g / 10) % 3], 'ai', c.created_at + interval '60 seconds', now(),
             CASE WHEN (g / 10) % 3 > 0 THEN c.created_at + make_interval(secs => 60 + 30 + (g % 600)) END,
             CASE WHEN (g / 10) % 3 = 2 THEN c.created_at + make_interval(secs => 60 + 900 + (g % 3600)) END
        FROM generate_series(10, $2, 10) g JOIN conversations c ON c.id = 'conv_bench' || g`,
  })[table];

/** The data set, set-based: $2 conversations over $4 days, $3 messages each, one in ten escalated. */
async function seed(app: TestApp, tenantId: string): Promise<number> {
  const started = performance.now();
  const sql = app.services.db.sql;
  const values = [tenantId, conversations, messagesEach, spanDays];
  await sql.query(seedSql("conversations"), values);
  await sql.query(seedSql("messages"), values);
  await sql.query(seedSql("escalations"), [tenantId, conversations]);
  // What autovacuum does soon after a bulk load: statistics, and the visibility map that index-only scans need.
  await sql.exec("VACUUM ANALYZE conversations, messages, escalations");
  return (performance.now() - started) / 1000;
}

/** How the plan reads the window's messages: the scan nodes of EXPLAIN for the message figures. */
async function messagePlan(app: TestApp, tenantId: string): Promise<string> {
  const rows = await app.services.db.sql.query<{ "QUERY PLAN": string }>(
    `EXPLAIN SELECT date_trunc('day', m.created_at, 'UTC'), m.role, count(*), sum(m.tokens_used)
       FROM messages m WHERE m.tenant_id = $1 AND m.created_at >= now() - interval '30 days' AND m.created_at < now()
      GROUP BY 1, 2`,
    [tenantId],
  );
  return rows
    .map((r) => r["QUERY PLAN"].match(/(Index Only Scan|Index Scan|Bitmap Heap Scan|Seq Scan)(?: using (\w+))?/)?.[0])
    .filter(Boolean)
    .join("; ");
}

interface Row {
  query: string;
  /** The first request: it also rolls up the days of its window that no report has read since they changed. */
  first: number;
  times: number[];
}

async function measureAnalytics(app: TestApp, key: string): Promise<Row[]> {
  const now = Date.now();
  const window = (days: number) => `from=${new Date(now - days * dayMs).toISOString()}&to=${new Date(now).toISOString()}`;
  const queries = [
    ["30 days, all channels, by day", window(30)],
    ["30 days, chatapp, by day", `${window(30)}&channel=chatapp`],
    ["30 days, all channels, by week", `${window(30)}&granularity=week`],
    [`${spanDays} days (every message), by week`, `${window(spanDays + 1)}&granularity=week`],
  ];
  const rows: Row[] = [];
  for (const [label, query] of queries) {
    const get = async () => {
      const res = await app.request(`/api/analytics?${query}`, { key });
      if (res.status !== 200) throw new Error(`analytics answered ${res.status}: ${JSON.stringify(res.body)}`);
    };
    const t0 = performance.now();
    await get();
    const first = performance.now() - t0;
    rows.push({ query: label!, first, times: await latencies(Array.from({ length: requests }), get) });
  }
  return rows;
}

/**
 * An agent's reply, from the API call to the customer's chat-app provider receiving it: stored, queued as a
 * send job, taken by the worker, sent. Also the API call alone (the reply stored and its send enqueued).
 */
async function measureReplies(app: TestApp, key: string, providers: FakeProviders) {
  const channel = await app.request("/api/tenant/channels/chatapp", {
    method: "PUT",
    key,
    body: {
      credentials: {
        phone_number_id: phoneNumberId,
        access_token: "EAAG-bench",
        verify_token: "bench-vt",
        app_secret: "bench-secret",
      },
    },
  });
  if (channel.status >= 300) throw new Error(`configuring the channel failed: ${JSON.stringify(channel.body)}`);
  const conversationId = "conv_bench_reply";
  await app.services.db.prisma.conversation.create({
    data: {
      id: conversationId,
      tenantId: (await app.services.db.prisma.channel.findUniqueOrThrow({ where: { id: channel.body.id } })).tenantId,
      channel: "chatapp",
      channelId: channel.body.id,
      customerId: "15550002222",
      customerPhone: "+15550002222",
    },
  });
  const beforeNotice = providers.sends.length;
  const escalated = await app.request("/api/escalations", { key, body: { conversation_id: conversationId } });
  if (escalated.status !== 201) throw new Error(`escalating failed: ${JSON.stringify(escalated.body)}`);
  // The hand-off notice goes out first: measuring starts once it has, so that no reply is matched with it.
  await providers.waitForSends(beforeNotice + 1, 30_000);
  const api: number[] = [];
  const delivered: number[] = [];
  for (let i = 0; i < replies; i++) {
    const before = providers.sends.length;
    const started = Date.now();
    const t0 = performance.now();
    const res = await app.request(`/api/conversations/${conversationId}/messages`, { key, body: { content: `Reply ${i}` } });
    if (res.status !== 201) throw new Error(`the reply failed: ${JSON.stringify(res.body)}`);
    api.push(performance.now() - t0);
    const [send] = (await providers.waitForSends(before + 1, 30_000)).slice(before);
    if (send?.body.text?.body !== `Reply ${i}`) throw new Error(`expected reply ${i} at the provider, got ${send?.raw}`);
    delivered.push(send.at - started);
  }
  return { api: api.sort((a, b) => a - b), delivered: delivered.sort((a, b) => a - b) };
}

/**
 * GET /api/analytics over a PostgreSQL data set of `conversations` × `messagesEach` messages spread over
 * `spanDays` days, and the agent-reply-to-customer latency through the fake chat-app provider. PostgreSQL only:
 * seeding a million messages into the embedded database measures PGlite's bulk load, not the queries.
 */
export async function benchAnalytics(): Promise<void> {
  const { databases, unreachable } = await benchDatabases();
  const postgres = databases.find((d) => d.name === "PostgreSQL");
  console.log(
    `\n### GET /api/analytics over ${thousands(conversations)} conversations and ${thousands(conversations * messagesEach)} messages (${spanDays} days), ${requests} requests each\n`,
  );
  console.log("| database | window | first (ms) | p50 (ms) | p90 (ms) | max (ms) | target p50 (issue 14) |");
  console.log("|---|---|---:|---:|---:|---:|---:|");
  if (!postgres) {
    console.log(noteRow(7, 0, unreachable ?? "not measured"));
    return;
  }
  const providers = await startFakeProviders();
  const app = await startBenchApp(postgres, { ...providers.env, RATE_LIMIT_MAX: "100000000" });
  try {
    const { tenantId, apiKey } = await app.tenant("Analytics Bench Bank");
    const seconds = await seed(app, tenantId);
    const plan = await messagePlan(app, tenantId);
    for (const row of await measureAnalytics(app, apiKey)) {
      const ms = (p: number) => fixed(percentile(row.times, p), 1);
      console.log(
        `| PostgreSQL | ${row.query} | ${fixed(row.first, 1)} | ${ms(0.5)} | ${ms(0.9)} | ${fixed(row.times.at(-1)!, 1)} | ≤ ${targetMs} |`,
      );
    }
    console.log(
      `\nSeeded in ${fixed(seconds, 1)} s (INSERT … SELECT generate_series, then VACUUM ANALYZE). Messages read by: ${plan}.` +
        " *first*: the first request of the row, which rolls up the days of its window that were not (all of the" +
        " seeded days for the first row, the older 60 for the last).",
    );

    app.startWorker();
    const { api, delivered } = await measureReplies(app, apiKey, providers);
    console.log(`\n### Agent reply to the customer (chat-app, fake provider), ${replies} replies one after another\n`);
    console.log("| database | stage | p50 (ms) | p90 (ms) | max (ms) |");
    console.log("|---|---|---:|---:|---:|");
    const line = (stage: string, sorted: number[]) =>
      console.log(
        `| PostgreSQL | ${stage} | ${fixed(percentile(sorted, 0.5), 1)} | ${fixed(percentile(sorted, 0.9), 1)} | ${fixed(sorted.at(-1)!, 1)} |`,
      );
    line("POST /api/conversations/:id/messages answered (stored, send queued)", api);
    line("at the provider's send API", delivered);
  } finally {
    await app.close();
    await providers.close();
  }
}
