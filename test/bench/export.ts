import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import type { TestApp } from "../helpers/app.js";
import { benchDatabases, fixed, noteRow, numberFrom, startBenchApp, thousands } from "./harness.js";

const conversations = numberFrom("BENCH_EXPORT_CONVERSATIONS", 50_000);
const messagesEach = numberFrom("BENCH_EXPORT_MESSAGES_EACH", 20);
const longConversation = numberFrom("BENCH_EXPORT_LONG", 100_000);
const totalMessages = conversations * messagesEach + longConversation;
// The live heap is read after a full collection, this often in bytes of the response.
const liveSampleBytes = 32 * 2 ** 20;

setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

/**
 * The data set, set-based: `conversations` of `messagesEach` messages (an AI answer citing a source in every
 * other), one in ten handed off (an escalation and two status events), and one conversation of `longConversation`.
 */
async function seed(app: TestApp, tenantId: string): Promise<number> {
  const started = performance.now();
  const sql = app.services.db.sql;
  await sql.query(
    `INSERT INTO conversations (id, tenant_id, channel, status, customer_phone, customer_id, message_count, created_at, updated_at)
     SELECT 'conv_export' || lpad(g::text, 7, '0'), $1, 'chatapp', CASE WHEN g % 10 = 0 THEN 'assigned' ELSE 'resolved' END,
            '+4479' || lpad(g::text, 8, '0'), 'customer' || g, CASE WHEN g = 0 THEN $4::int ELSE $3::int END,
            now() - interval '30 days' + make_interval(secs => g), now()
       FROM generate_series(0, $2::int) g`,
    [tenantId, conversations, messagesEach, longConversation],
  );
  const messages = (range: string, conversation: string, count: string) => `
     INSERT INTO messages (id, tenant_id, conversation_id, role, content, metadata, created_at)
     SELECT 'msg_export' || ${conversation} || '_' || i, $1, 'conv_export' || lpad((${conversation})::text, 7, '0'),
            CASE WHEN i % 2 = 0 THEN 'customer' ELSE 'assistant' END,
            CASE WHEN i % 2 = 0 THEN 'How much does a transfer abroad cost, and how long does it take? (' || i || ')'
                 ELSE 'A transfer abroad costs 5 EUR and arrives within two working days, says the Fees FAQ.' END,
            CASE WHEN i % 2 = 0 THEN jsonb_build_object('intent', 'fees', 'confidence', 0.91)
                 ELSE jsonb_build_object('intent', 'fees', 'agentType', 'faq', 'tokensUsed', 42, 'sources',
                        jsonb_build_array(jsonb_build_object('sourceId', 'src_fees', 'title', 'Fees FAQ',
                                                             'url', 'https://bank.example/fees', 'score', 0.83))) END,
            now() - interval '30 days' + make_interval(secs => ${conversation}) + make_interval(secs => i)
       FROM ${range}, generate_series(1, ${count}) i`;
  await sql.query(messages("generate_series(1, $2::int) g", "g", "$3::int"), [tenantId, conversations, messagesEach]);
  await sql.query(messages("(SELECT 0 AS g) z", "g", "$2::int"), [tenantId, longConversation]);
  await sql.query(
    `INSERT INTO escalations (id, tenant_id, conversation_id, reason, status, created_by, created_at, updated_at)
     SELECT 'esc_export' || g, $1, 'conv_export' || lpad(g::text, 7, '0'), 'customer_request', 'assigned', 'ai',
            now() - interval '30 days' + make_interval(secs => g + 5), now()
       FROM generate_series(10, $2::int, 10) g`,
    [tenantId, conversations],
  );
  await sql.query(
    `INSERT INTO conversation_events (id, tenant_id, conversation_id, type, from_status, to_status, actor, reason, created_at)
     SELECT 'evt_export' || g || s.n, $1, 'conv_export' || lpad(g::text, 7, '0'), 'status', s.from_status, s.to_status,
            s.actor, s.reason, now() - interval '30 days' + make_interval(secs => g + 5 + s.n)
       FROM generate_series(10, $2::int, 10) g,
            (VALUES (0, 'open', 'escalated', 'ai', 'customer_request'), (1, 'escalated', 'assigned', 'system', NULL)) s(n, from_status, to_status, actor, reason)`,
    [tenantId, conversations],
  );
  await sql.exec("VACUUM ANALYZE conversations, messages, escalations, conversation_events");
  return (performance.now() - started) / 1000;
}

interface Measured {
  seconds: number;
  bytes: number;
  lines: number;
  liveHeapPeakMb: number;
  rssPeakMb: number;
}

/**
 * One export over HTTP, read as fast as the client can. The live heap (after a full collection, every 32 MB of
 * response) and the resident memory (every 100 ms) are compared with what they were before.
 */
async function measureExport(app: TestApp, key: string, format: "csv" | "json"): Promise<Measured> {
  collectGarbage();
  const before = process.memoryUsage();
  let liveHeapPeak = 0;
  let rssPeak = 0;
  const sample = setInterval(() => {
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss - before.rss);
  }, 100);
  const started = performance.now();
  try {
    const res = await fetch(`${app.url}/api/conversations/export?format=${format}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    if (res.status !== 200) throw new Error(`export answered ${res.status}: ${await res.text()}`);
    let bytes = 0;
    let lines = 0;
    let nextSample = liveSampleBytes;
    const reader = res.body!.getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      bytes += read.value.byteLength;
      for (const byte of read.value) if (byte === 10) lines++;
      if (bytes >= nextSample) {
        collectGarbage();
        liveHeapPeak = Math.max(liveHeapPeak, process.memoryUsage().heapUsed - before.heapUsed);
        nextSample += liveSampleBytes;
      }
    }
    const seconds = (performance.now() - started) / 1000;
    return { seconds, bytes, lines, liveHeapPeakMb: liveHeapPeak / 2 ** 20, rssPeakMb: rssPeak / 2 ** 20 };
  } finally {
    clearInterval(sample);
  }
}

/**
 * GET /api/conversations/export over a million messages, CSV and JSON, on both databases: time, throughput, and
 * how much the process's live heap and resident memory grew at most while it ran.
 */
export async function benchExport(): Promise<void> {
  const { databases, unreachable } = await benchDatabases();
  console.log(
    `\n### GET /api/conversations/export: ${thousands(conversations + 1)} conversations, ${thousands(totalMessages)} messages (one conversation of ${thousands(longConversation)})\n`,
  );
  console.log(
    "| database | format | size (MB) | time (s) | messages/s | MB/s | live heap growth, peak (MB) | RSS growth, peak (MB) |",
  );
  console.log("|---|---|---:|---:|---:|---:|---:|---:|");
  const notes: string[] = [];
  for (const database of databases) {
    const app = await startBenchApp(database);
    try {
      const { tenantId, apiKey } = await app.tenant("Export Bench Bank");
      notes.push(`${database.name} seeded in ${fixed(await seed(app, tenantId), 1)} s.`);
      for (const format of ["csv", "json"] as const) {
        const m = await measureExport(app, apiKey, format);
        const mb = m.bytes / 2 ** 20;
        console.log(
          `| ${database.name} | ${format} | ${fixed(mb, 1)} | ${fixed(m.seconds, 1)} | ${thousands(Math.round(totalMessages / m.seconds))} | ${fixed(mb / m.seconds, 1)} | ${fixed(m.liveHeapPeakMb, 1)} | ${fixed(m.rssPeakMb, 1)} |`,
        );
        if (format === "csv" && m.lines < totalMessages)
          throw new Error(`the CSV has ${m.lines} lines for ${totalMessages} messages`);
      }
    } finally {
      await app.close();
    }
  }
  if (unreachable) console.log(noteRow(8, 0, unreachable));
  console.log(`\n${notes.join(" ")}`);
}
