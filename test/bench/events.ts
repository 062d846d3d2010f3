import { recordAudit } from "../../src/audit/record.js";
import { verifyAuditChain } from "../../src/audit/verify.js";
import { startWebhookReceiver } from "../fakes/webhook-receiver.js";
import { benchDatabases, fixed, latencies, noteRow, numberFrom, percentile, startBenchApp, thousands } from "./harness.js";

const chats = numberFrom("BENCH_EVENTS_CHATS", 60);
const records = numberFrom("BENCH_AUDIT_RECORDS", 2_000);
const writers = 8;

/**
 * What event notifications and the audit trail cost. Chat: sequential `/api/chat` requests of a tenant without
 * endpoints and of one whose endpoint wants every conversation and message event (three events, each an outbox
 * row and a delivery job in the request's transactions), interleaved so that both see the same machine.
 * Audit: appends one at a time and from `writers` concurrent writers (one chain per tenant, serialised), then
 * the verification of the whole chain.
 */
export async function benchEvents(): Promise<void> {
  const { databases, unreachable } = await benchDatabases();
  console.log(
    "| database | chat p50 ms, no endpoint | chat p50 ms, 3 events | deliveries | audit append ms (1 writer) | appends/s (8 writers) | verify records/s |",
  );
  console.log("|---|---:|---:|---:|---:|---:|---:|");
  for (const database of databases) {
    const app = await startBenchApp(database, { EGRESS_ALLOW_CIDRS: "127.0.0.1/32" });
    const receiver = await startWebhookReceiver();
    try {
      app.startWorker();
      const quiet = await app.tenant("Quiet Bank");
      const notified = await app.tenant("Notified Bank");
      const created = await app.request("/api/webhooks", {
        key: notified.apiKey,
        body: { url: `${receiver.url}/crm`, event_types: ["conversation.created", "message.received", "message.sent"] },
      });
      receiver.trust("/crm", created.body.secret);
      const ask = (key: string) => app.request("/api/chat", { key, body: { message: "How do I reset my card PIN?" } });
      // Warm both paths (classifier, caches) before measuring.
      await ask(quiet.apiKey);
      await ask(notified.apiKey);
      const quietTimes: number[] = [];
      const notifiedTimes: number[] = [];
      for (let i = 0; i < chats; i++) {
        quietTimes.push(...(await latencies([quiet.apiKey], ask)));
        notifiedTimes.push(...(await latencies([notified.apiKey], ask)));
      }
      await receiver.waitFor(() => true, 3 * (chats + 1), 300_000);
      const sorted = (times: number[]) => times.sort((a, b) => a - b);

      const audited = await app.tenant("Audited Bank");
      const entry = { tenantId: audited.tenantId, actor: { kind: "system" as const }, action: "bench.append" };
      const single = await latencies(
        Array.from({ length: records / 2 }, (_, i) => i),
        (i) => recordAudit(app.services, { ...entry, details: { i } }),
      );
      const started = performance.now();
      await Promise.all(
        Array.from({ length: writers }, async (_, w) => {
          for (let i = 0; i < records / 2 / writers; i++) await recordAudit(app.services, { ...entry, details: { w, i } });
        }),
      );
      const concurrentRate = records / 2 / ((performance.now() - started) / 1000);
      const verifyStarted = performance.now();
      const verified = await verifyAuditChain(app.services.db.prisma, audited.tenantId);
      if (!verified.ok) throw new Error(`the chain broke: ${JSON.stringify(verified.broken)}`);
      const verifyRate = verified.checked / ((performance.now() - verifyStarted) / 1000);
      console.log(
        `| ${database.name} | ${fixed(percentile(sorted(quietTimes), 0.5), 1)} | ${fixed(percentile(sorted(notifiedTimes), 0.5), 1)} ` +
          `| ${thousands(receiver.requests.length)} | ${fixed(percentile(single, 0.5))} | ${thousands(Math.round(concurrentRate))} ` +
          `| ${thousands(Math.round(verifyRate))} |`,
      );
    } finally {
      await app.close();
      await receiver.close();
    }
  }
  if (unreachable) console.log(noteRow(7, 0, unreachable));
}
