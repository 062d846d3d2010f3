import { recordAudit } from "../../src/audit/record.js";
import { enforceRetention } from "../../src/retention/enforce.js";
import { SetRetentionDocument } from "../generated.js";
import { seedHistory } from "../helpers/seed.js";
import { benchDatabases, fixed, noteRow, numberFrom, startBenchApp, thousands } from "./harness.js";

const conversations = numberFrom("BENCH_RETENTION_CONVERSATIONS", 20_000);
const records = numberFrom("BENCH_RETENTION_AUDIT", 3_000);
const dayMs = 86_400_000;

/** Runs `work` and samples the live heap meanwhile: its growth over the start, at the highest sample. */
async function measured<T>(work: () => Promise<T>): Promise<{ result: T; seconds: number; heapMb: number }> {
  const start = process.memoryUsage().heapUsed;
  let peak = start;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  }, 20);
  const began = performance.now();
  try {
    const result = await work();
    return { result, seconds: (performance.now() - began) / 1000, heapMb: (peak - start) / 1024 / 1024 };
  } finally {
    clearInterval(sampler);
  }
}

/**
 * What a retention run costs: a tenant's `conversations` conversations of two messages over 30 days, with
 * transcripts kept 15 days and identities 7 (about half deleted, a quarter anonymised); then a trail of `records`
 * audit records, all past a 365-day period (the run is dated a year and a day later), pruned to its last record.
 */
export async function benchRetention(): Promise<void> {
  const { databases, unreachable } = await benchDatabases();
  console.log(
    "| database | conversations deleted | anonymised | run s | conversations/s | audit records pruned | prune s | records/s | live heap growth, peak MB |",
  );
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const database of databases) {
    const app = await startBenchApp(database);
    try {
      const bank = await app.tenant("Retaining Bank");
      await seedHistory(app.services, bank.tenantId, { conversations });
      await app.graphql(SetRetentionDocument, { periods: { messages: 15, identities: 7 } }, bank.apiKey);
      const transcripts = await measured(() => enforceRetention(app.services, bank.tenantId));

      const archive = await app.tenant("Archiving Bank");
      for (let i = 0; i < records; i++) {
        await recordAudit(app.services, { tenantId: archive.tenantId, actor: { kind: "system" }, action: "bench.append" });
      }
      await app.graphql(SetRetentionDocument, { periods: { auditRecords: 365 } }, archive.apiKey);
      const trail = await measured(() => enforceRetention(app.services, archive.tenantId, Date.now() + 366 * dayMs));

      const deleted = transcripts.result?.messages?.conversations ?? 0;
      const anonymised = transcripts.result?.identities?.conversations ?? 0;
      const pruned = trail.result?.auditRecords?.records ?? 0;
      console.log(
        `| ${database.name} | ${thousands(deleted)} | ${thousands(anonymised)} | ${fixed(transcripts.seconds)} | ${thousands(
          Math.round((deleted + anonymised) / transcripts.seconds),
        )} | ${thousands(pruned)} | ${fixed(trail.seconds)} | ${thousands(Math.round(pruned / trail.seconds))} | ${fixed(
          Math.max(transcripts.heapMb, trail.heapMb),
          1,
        )} |`,
      );
    } finally {
      await app.close();
    }
  }
  if (unreachable) console.log(noteRow(9, 0, unreachable));
}
