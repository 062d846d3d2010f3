import { rmSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { openDatabase } from "../../src/db/client.js";
import { startFakeOpenAI } from "../fakes/openai-server.js";
import { type FakeProviders, startFakeProviders } from "../fakes/providers.js";
import { createTestDatabase, type TestDatabase } from "../helpers/database.js";
import { freePort, runScript, type Spawned, whenServing } from "../helpers/process.js";
import { testTempDir } from "../helpers/temp.js";

// Real service processes killed with SIGKILL in the middle of a webhook storm: every customer message the
// service acknowledged with 2xx must get exactly one reply, sent exactly once to the provider. On PGlite one
// process is killed and restarted on its data directory; on PostgreSQL one of two instances sharing the
// database is killed while the other goes on, then restarted.

const dataDir = testTempDir("parley-crash");
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const messages = 40;
const secret = "crash_s3cret-Token";
const botToken = "7000000009:AAHcrashRecoveryBotToken_0000009";
const firstChat = 800_000_000;

interface Instance {
  url: string;
  process: Spawned;
}

function update(n: number): string {
  const chatId = firstChat + n;
  return JSON.stringify({
    update_id: 900_000_000 + n,
    message: {
      message_id: n,
      from: { id: chatId, is_bot: false, first_name: "Kofi" },
      chat: { id: chatId, type: "private" },
      date: 1700000000,
      text: `How do I reset my card PIN? (question ${n})`,
    },
  });
}

/** Posts one webhook as the provider does: again and again, to whichever instance is up, until one acknowledges it. */
async function deliver(instances: () => Instance[], n: number): Promise<void> {
  const deadline = Date.now() + 200_000;
  for (let attempt = 0; ; attempt++) {
    const live = instances();
    const target = live[(n + attempt) % Math.max(1, live.length)];
    const res = target
      ? await fetch(`${target.url}/api/v1/channels/botmsg/webhook`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": secret },
          body: update(n),
        }).catch(() => null)
      : null;
    if (res?.ok) return;
    if (Date.now() > deadline) throw new Error(`message ${n} was never acknowledged (last status ${res?.status})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("crash recovery under a webhook storm", () => {
  it("answers every acknowledged message exactly once, and sends each answer once, when a process is killed mid-storm", async () => {
    // One fake provider per instance, so that the killed one's sends can be told apart.
    const providers: FakeProviders[] = [await startFakeProviders()];
    const database: TestDatabase | null = process.env.DATABASE_URL ? await createTestDatabase() : null;
    if (database) providers.push(await startFakeProviders());
    const [victimProvider, survivorProvider] = providers as [FakeProviders, FakeProviders | undefined];
    const sends = () => providers.flatMap((p) => p.sends);
    // A model server that takes its time, as real ones do: at any instant some messages are stored and
    // waiting for their answer, the instant a crash used to lose them.
    const model = await startFakeOpenAI();
    model.setFallback({ text: "You can reset your card PIN in the app, under Cards.", deltas: 2, delayMs: 400 });
    const env = {
      OPENAI_API_KEY: model.apiKey,
      OPENAI_BASE_URL: model.url,
      DATA_DIR: dataDir,
      DATABASE_URL: database?.url ?? "",
      REDIS_URL: process.env.REDIS_URL ?? "",
      RATE_LIMIT_MAX: "100000",
      // On PostgreSQL the survivor takes over the killed instance's jobs once their lease has run out.
      JOB_LEASE_MS: "3000",
    };
    const spawned: Spawned[] = [];
    const start = async (provider: FakeProviders): Promise<Instance> => {
      const port = await freePort();
      const child = runScript("src/main.ts", [], { ...env, ...provider.env, PORT: String(port) });
      spawned.push(child);
      const url = `http://127.0.0.1:${port}`;
      await whenServing(`${url}/healthz`, undefined, 240_000);
      return { url, process: child };
    };
    try {
      let victim = await start(victimProvider);
      const [, key] = await victim.process.waitFor(/API key \(shown once, keep it\):\s+(prl_\S+)/, 60_000);
      const graphql = async (instance: Instance, query: string) => {
        const res = await fetch(`${instance.url}/graphql`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({ query }),
        });
        return (await res.json()).data;
      };
      const configured = await fetch(`${victim.url}/api/tenant/channels/botmsg`, {
        method: "PUT",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ credentials: { bot_token: botToken, secret_token: secret } }),
      });
      expect(configured.status).toBeLessThan(300);
      const survivor = survivorProvider ? await start(survivorProvider) : null;

      let killed = false;
      const live = () => [...(killed ? [] : [victim]), ...(survivor ? [survivor] : [])];
      const storm = Promise.all(
        Array.from({ length: messages }, async (_, n) => {
          // A steady stream rather than one burst: the kill lands while messages are arriving and being answered.
          await new Promise((resolve) => setTimeout(resolve, n * 50));
          await deliver(live, n);
        }),
      );
      // Killed once it is answering: replies are being sent while later messages are still stored and queued.
      await victimProvider.waitForSends(5, 120_000);
      // …but not between a provider accepting a send and the send being recorded: that instant cannot be
      // made safe (the provider has no idempotency key), and the service's report says so. Sends are held
      // until every one accepted so far is recorded; the held ones never reached the provider.
      victimProvider.hold();
      await vi.waitFor(
        async () => {
          const done = await graphql(victim, `{ jobs(status: "completed", queue: "deliver.send") { total } }`);
          expect(done.jobs.total).toBe(sends().length);
        },
        { timeout: 60_000, interval: 50 },
      );
      victim.process.child.kill("SIGKILL");
      await victim.process.exit();
      killed = true;
      await vi.waitFor(() => expect(victimProvider.holding()).toBe(0), { timeout: 10_000, interval: 20 });
      victimProvider.release();
      victim = await start(victimProvider);
      killed = false;
      await storm;

      // Settled: every message answered and sent (a lost one never is), and no job left to run (a duplicate would be).
      await vi.waitFor(
        async () => {
          expect(sends().length).toBeGreaterThanOrEqual(messages);
          const jobs = await graphql(
            victim,
            `{ pending: jobs(status: "pending") { total } running: jobs(status: "running") { total } }`,
          );
          expect(jobs.pending.total + jobs.running.total).toBe(0);
        },
        { timeout: 120_000, interval: 250 },
      );
      for (const instance of [victim, survivor]) {
        instance?.process.child.kill("SIGTERM");
        await instance?.process.exit();
      }

      const sendsPerChat = new Map<number, number>();
      for (const send of sends()) sendsPerChat.set(send.body.chat_id, (sendsPerChat.get(send.body.chat_id) ?? 0) + 1);
      const db = await openDatabase({ url: database?.url, pgliteDir: path.join(dataDir, "pglite") });
      try {
        const rows = await db.sql.query<{ customer_id: string; customers: number; replies: number; sent: number }>(
          `SELECT c.customer_id,
                  count(*) FILTER (WHERE m.role = 'customer')::int AS customers,
                  count(*) FILTER (WHERE m.role = 'assistant')::int AS replies,
                  count(*) FILTER (WHERE m.role = 'assistant' AND m.delivery_status = 'sent')::int AS sent
             FROM conversations c JOIN messages m ON m.conversation_id = c.id
            WHERE c.channel = 'botmsg'
            GROUP BY c.customer_id`,
        );
        const answered = rows.filter((r) => r.customers === 1 && r.replies === 1 && r.sent === 1).length;
        console.info(
          `crash recovery (${database ? "PostgreSQL, two instances" : "PGlite"}): ${messages} acknowledged, ${answered} answered once, ${sends().length} sends`,
        );
        expect(rows.filter((r) => r.customers !== 1 || r.replies !== 1 || r.sent !== 1)).toEqual([]);
        expect(answered).toBe(messages);
        expect(sends()).toHaveLength(messages);
        expect([...sendsPerChat.values()].every((count) => count === 1)).toBe(true);
      } finally {
        await db.close();
      }
    } finally {
      for (const child of spawned) child.child.kill("SIGKILL");
      for (const provider of providers) await provider.close();
      await model.close();
      await database?.drop();
    }
  }, 400_000);
});
