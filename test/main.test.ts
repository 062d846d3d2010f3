import { readdirSync, rmSync } from "node:fs";
import path from "node:path";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { afterAll, describe, expect, it } from "vitest";
import { startFakeOpenAI } from "./fakes/openai-server.js";
import { createTestDatabase } from "./helpers/database.js";
import { freePort, runScript, whenServing } from "./helpers/process.js";
import { testTempDir } from "./helpers/temp.js";

const dataDir = testTempDir("parley-main");
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

// The service as `npm start` runs it, on the embedded defaults (or DATABASE_URL when the suite runs on PostgreSQL,
// where the demo tenant is only created if the database is empty, so this file checks it on PGlite only).
describe.runIf(!process.env.DATABASE_URL)("npm start on an empty data directory", () => {
  it("creates the demo tenant, prints a working key and the dashboard's owner login once, and persists across restarts", async () => {
    const port = await freePort();
    const env = { DATA_DIR: dataDir, PORT: String(port), DATABASE_URL: "", REDIS_URL: "" };
    const first = runScript("src/main.ts", [], env);
    const [, key] = await first.waitFor(/API key \(shown once, keep it\):\s+(prl_\S+)/);
    await first.waitFor(/curl -s http:\/\/localhost:\d+\/api\/conversations/);
    const [, email, password] = await first.waitFor(/sign in as (\S+) with the password \(shown once\): (\S+)/);
    const login = await fetch(`http://127.0.0.1:${port}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        query: "mutation($e: String!, $p: String!) { login(email: $e, password: $p) { agent { role } } }",
        variables: { e: email, p: password },
      }),
    });
    expect((await login.json()).data.login.agent.role).toBe("owner");
    const dashboard = await fetch(`http://127.0.0.1:${port}/dashboard`);
    expect(dashboard.status).toBe(200);
    expect(await dashboard.text()).toContain('<script type="module" src="/dashboard/assets/main-');
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(await health.json()).toEqual({ status: "ok" });
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(await ready.json()).toMatchObject({ status: "ready", database: "ok" });
    const list = await fetch(`http://127.0.0.1:${port}/api/conversations`, { headers: { authorization: `Bearer ${key}` } });
    expect(list.status).toBe(200);

    first.child.kill("SIGTERM");
    expect(await first.exit()).toBe(0);

    const second = runScript("src/main.ts", [], env);
    const again = await whenServing(`http://127.0.0.1:${port}/api/conversations`, { headers: { "x-api-key": key! } });
    expect(again.status).toBe(200);
    expect(second.stdout()).not.toContain("prl_");
    expect(second.stdout()).not.toContain("sign in as");
    second.child.kill("SIGTERM");
    expect(await second.exit()).toBe(0);
  }, 300_000);
});

describe.runIf(!process.env.DATABASE_URL)("a stop asked for while the service starts", () => {
  it("waits for the start to end, then stops as it would later, releasing the embedded database", async () => {
    const stopDir = testTempDir("parley-main-stop");
    try {
      const env = { DATA_DIR: stopDir, PORT: String(await freePort()), DATABASE_URL: "", REDIS_URL: "", LOG_LEVEL: "info" };
      const starting = runScript("src/main.ts", [], env);
      // Logged as the services are made, before the demo tenant, the socket and the worker's schedules.
      await starting.waitFor(/applied database migrations/);
      starting.child.kill("SIGTERM");
      expect(await starting.exit()).toBe(0);
      expect(starting.stdout()).toMatch(/"msg":"stopped"/);
      // The demo tenant's vector index, built by the pipeline's warm-up at start, is kept beside the database (DESIGN §5).
      expect(readdirSync(stopDir).sort()).toEqual(["pglite", "secrets.key", "vector-index"]);
    } finally {
      rmSync(stopDir, { recursive: true, force: true });
    }
  }, 300_000);
});

/** The events of a server-sent event stream as they arrive, and when it ends. */
function eventsOf(res: Response): { events: EventSourceMessage[]; ended: Promise<void> } {
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (e) => events.push(e) });
  const decoder = new TextDecoder();
  const ended = (async () => {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>)
      parser.feed(decoder.decode(chunk, { stream: true }));
  })();
  // A test that fails before it awaits the end kills the service, which cuts the stream: not an error of its own.
  ended.catch(() => undefined);
  return { events, ended };
}

// On PostgreSQL too: a fresh database of its own is empty, so the demo tenant is created there as well.
describe("SIGTERM", () => {
  it("lets an in-flight request finish, ends an open chat stream with an error event, and exits 0", async () => {
    const fake = await startFakeOpenAI();
    const database = process.env.DATABASE_URL ? await createTestDatabase() : null;
    const port = await freePort();
    const service = runScript("src/main.ts", [], {
      DATA_DIR: path.join(dataDir, "sigterm"),
      PORT: String(port),
      DATABASE_URL: database?.url ?? "",
      REDIS_URL: process.env.REDIS_URL ?? "",
      OPENAI_API_KEY: fake.apiKey,
      OPENAI_BASE_URL: fake.url,
    });
    try {
      const [, key] = await service.waitFor(/API key \(shown once, keep it\):\s+(prl_\S+)/);
      const chat = (body: Record<string, unknown>) =>
        fetch(`http://127.0.0.1:${port}/api/chat`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        });
      const answersStarted = () =>
        fake.requests.filter((r) => r.path === "/v1/chat/completions" && r.body.stream === true).length;
      const intent = { json: { intent: "balance", confidence: 0.9 } };

      // A stream the model would take 20 s to finish, longer than the shutdown may take…
      fake.script(intent, { text: "A long answer. ".repeat(40), deltas: 40, delayMs: 500 });
      const stream = eventsOf(await chat({ message: "Tell me everything about my balance", stream: true }));
      // The model's own first delta (the stream's first is the AI disclosure, sent before the model is asked): only
      // then has this answer taken its scripted steps, and the next request's steps can be queued.
      const modelStreaming = () =>
        fake.requests.some((r) => r.path === "/v1/chat/completions" && r.body.stream === true && r.deltasSent > 0);
      await expect.poll(modelStreaming).toBe(true);
      await expect.poll(() => stream.events.filter((e) => e.event === "delta").length).toBeGreaterThan(1);
      // …and a plain request the model answers in a second or two, in flight when the signal comes.
      const text = "Your balance is shown in the app, under Accounts.";
      fake.script(intent, { text, deltas: 4, delayMs: 400 });
      const pending = chat({ message: "Where do I see my balance?" });
      await expect.poll(answersStarted).toBe(2);

      const signalled = Date.now();
      service.child.kill("SIGTERM");
      const res = await pending;
      expect(res.status).toBe(200);
      // A new conversation: its first reply follows the AI disclosure.
      expect((await res.json()).response).toMatch(new RegExp(`\n\n${text}$`));

      await stream.ended;
      const last = stream.events.at(-1)!;
      expect(last.event).toBe("error");
      expect(JSON.parse(last.data)).toMatchObject({ code: "INTERNAL", error: expect.stringMatching(/send your message again/) });
      expect(stream.events.some((e) => e.event === "done")).toBe(false);

      expect(await service.exit()).toBe(0);
      expect(Date.now() - signalled).toBeLessThan(10_000);
    } finally {
      service.child.kill("SIGKILL");
      await fake.close();
      await database?.drop();
    }
  }, 300_000);
});
