import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/app.js";

// Issue 12, item 3: an export streams in constant memory. 10,000 messages of 4.4 KB (one conversation of 5,000, and
// 25 of 200) are exported as 45 MB of CSV while the test reads the response; the process's live heap, measured after
// a full collection every few megabytes, stays under a bound that the export's text alone, held whole, would pass.
// The million-message figures (time, peak memory) are in `npm run bench -- export` (test/bench/README.md).

const bigConversation = 5_000;
const conversations = 25;
const messagesEach = 200;
const totalMessages = bigConversation + conversations * messagesEach;
const content = "A customer asks about the fees of a savings account; the assistant answers from the knowledge base. ".repeat(44);
const heapBoundBytes = 24 * 1024 * 1024;

setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

let app: TestApp;
let bank: { tenantId: string; apiKey: string };

beforeAll(async () => {
  app = await startTestApp();
  bank = await app.tenant("Archive Bank");
  const sql = app.services.db.sql;
  await sql.query(
    `INSERT INTO conversations (id, tenant_id, channel, status, customer_id, message_count, created_at, updated_at)
     SELECT 'conv_mem' || lpad(g::text, 6, '0'), $1, 'sms', 'resolved', 'customer' || g,
            CASE WHEN g = 0 THEN $2::int ELSE $4::int END, now() + make_interval(secs => g), now()
       FROM generate_series(0, $3) g`,
    [bank.tenantId, bigConversation, conversations, messagesEach],
  );
  await sql.query(
    `INSERT INTO messages (id, tenant_id, conversation_id, role, content, metadata, created_at)
     SELECT 'msg_mem' || lpad(i::text, 7, '0'), $1, 'conv_mem000000', CASE WHEN i % 2 = 0 THEN 'customer' ELSE 'assistant' END,
            $3 || i, jsonb_build_object('intent', 'fees'), now() + make_interval(secs => i)
       FROM generate_series(1, $2) i`,
    [bank.tenantId, bigConversation, content],
  );
  await sql.query(
    `INSERT INTO messages (id, tenant_id, conversation_id, role, content, metadata, created_at)
     SELECT 'msg_mem' || lpad(g::text, 6, '0') || '_' || lpad(i::text, 3, '0'), $1, 'conv_mem' || lpad(g::text, 6, '0'),
            CASE WHEN i % 2 = 0 THEN 'customer' ELSE 'assistant' END, $4 || i, '{}'::jsonb, now() + make_interval(secs => i)
       FROM generate_series(1, $2) g, generate_series(1, $3) i`,
    [bank.tenantId, conversations, messagesEach, content],
  );
}, 300_000);
afterAll(() => app?.close());

describe("a large export", () => {
  it("streams 10,000 messages (45 MB) as CSV with the live heap growing less than 24 MB", async () => {
    collectGarbage();
    const baseline = process.memoryUsage().heapUsed;
    const res = await fetch(`${app.url}/api/conversations/export?format=csv`, {
      headers: { authorization: `Bearer ${bank.apiKey}` },
    });
    expect(res.status).toBe(200);
    let bytes = 0;
    let rows = 0;
    let nextSample = 0;
    let peak = 0;
    const reader = res.body!.getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      const chunk = read.value;
      bytes += chunk.byteLength;
      // Row ends: the text has no line breaks of its own.
      for (const byte of chunk) if (byte === 10) rows++;
      if (bytes >= nextSample) {
        collectGarbage();
        peak = Math.max(peak, process.memoryUsage().heapUsed - baseline);
        nextSample += 4 * 1024 * 1024;
      }
    }
    // The header and one row per message (the seeded conversations have no timeline or hand-offs).
    expect(rows).toBe(totalMessages + 1);
    expect(bytes).toBeGreaterThan(totalMessages * content.length);
    expect(peak).toBeLessThan(heapBoundBytes);
  }, 600_000);
});
