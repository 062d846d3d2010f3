import { rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import autocannon from "autocannon";
import express from "express";
import { startFakeOpenAI } from "../fakes/openai-server.js";
import type { TestApp } from "../helpers/app.js";
import { testTempDir } from "../helpers/temp.js";
import {
  chatRequests,
  customersQuestions,
  distinctChatRequests,
  questions,
  serviceWithKnowledge,
  streamedChat,
  timesToFirst,
  timeToFirst,
} from "./chat-requests.js";
import { placesLine, profiled, type topPlaces } from "./cpu-profile.js";
import { type BenchDatabase, benchDatabases, fixed, noteRow, numberFrom, percentile, thousands } from "./harness.js";
import { startServiceProcess } from "./service-process.js";
import { statementsSent } from "./statements.js";

const chunks = numberFrom("BENCH_CHAT_CHUNKS", 10_000);
const connections = numberFrom("BENCH_CHAT_CONNECTIONS", 10);
const durationS = numberFrom("BENCH_CHAT_DURATION_S", 10);
const streamedCount = numberFrom("BENCH_CHAT_STREAMS", 50);
// Far above what the load reaches in its duration: the benchmark measures the service, not its 429s.

// The model's reply, cut into deltas as a model server streams it.
const modelAnswer = "You can open a savings account in the mobile app once we have verified your identity (Help centre).";
const modelDeltas = 20;

/** The framework's own limit: Express parsing the same JSON body and answering a fixed reply of the same shape. */
async function startBareExpress(): Promise<{ url: string; close(): Promise<void> }> {
  const reply = {
    response: modelAnswer,
    conversationId: "conv_bench",
    messageId: "msg_bench",
    metadata: { intent: "account_opening", confidence: 0.9, agentType: "faq", tokensUsed: 0, sources: [] },
  };
  const app = express();
  app.use(express.json());
  app.post("/api/chat", (_req, res) => {
    res.json(reply);
  });
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** POST /api/chat under `connections` concurrent clients, cycling through the requests; the load comes from a worker thread. */
function load(url: string, requests: autocannon.Request[]): Promise<autocannon.Result> {
  return autocannon({ url, connections, duration: durationS, workers: 1, requests });
}

// Issue 14's targets: /api/chat within 1 : 20 of bare Express on PGlite and 1 : 10 on PostgreSQL, 1.5 ms of CPU a request.
const ratioTargets: Record<BenchDatabase["name"], number> = { PGlite: 20, PostgreSQL: 10 };
const cpuTargetMs = 1.5;
const firstDeltaOverheadTargetMs = 5;

function loadRow(target: string, database: BenchDatabase, result: autocannon.Result, bare?: autocannon.Result): string {
  const failed = result.non2xx + result.errors + result.timeouts;
  const ratio = bare ? `1 : ${fixed(bare.requests.average / result.requests.average, 1)}` : "1 : 1";
  const goal = bare ? `≥ 1 : ${ratioTargets[database.name]}` : "–";
  return (
    `| ${target} | ${database.name} | ${connections} | ${thousands(result.requests.total)} | ${fixed(result.requests.average, 1)} ` +
    `| ${result.latency.p50} | ${result.latency.p99} | ${failed} | ${ratio} | ${goal} |`
  );
}

/** What one request cost while the load ran: SQL statements (BEGIN and COMMIT counted) and CPU of the process. */
interface RequestCost {
  database: BenchDatabase;
  /** Which questions the load asked. */
  questions: string;
  statements: number;
  cpuMs: number;
  top: ReturnType<typeof topPlaces>;
}

/** The load against the service, with its statements and CPU per completed request (the load generator's worker included). */
async function measuredLoad(database: BenchDatabase, url: string, asked: Asked) {
  const statements = statementsSent();
  const cpu = process.cpuUsage();
  const { result, top } = await profiled(`chat-${database.name}-${asked.profile}`, () => load(url, asked.requests));
  const used = process.cpuUsage(cpu);
  // Requests still in flight at the deadline are counted by their statements, not by autocannon: a slight overcount.
  const requests = Math.max(1, result.requests.total);
  const cost: RequestCost = {
    database,
    questions: asked.name,
    statements: (statementsSent() - statements) / requests,
    cpuMs: (used.user + used.system) / 1000 / requests,
    top,
  };
  return { result, cost };
}

function costRow({ database, questions, statements, cpuMs }: RequestCost): string {
  return `| ${database.name} | ${questions} | ${fixed(statements, 1)} | ${fixed(cpuMs, 2)} | ≤ ${cpuTargetMs} |`;
}

/** What a load asks: the same six questions over and over, or customers' questions, each asked once. */
interface Asked {
  name: string;
  profile: string;
  requests: autocannon.Request[];
}

const sixQuestions = (count: number) => Array.from({ length: count }, (_, i) => questions[i % questions.length]!);

interface StreamRow {
  engine: string;
  database: BenchDatabase;
  service: number[];
  model?: number[];
  /** From the model server writing its first token to the client reading the service's first `delta` (ms). */
  relay?: number[];
  /** Mean milliseconds per pipeline stage over the streamed requests. */
  stages: string;
}

const stageOrder = ["router", "retriever", "engine", "deliver"];

/** The service's own stage timings (parley_pipeline_stage_duration_seconds) for `run` alone: where a request's time goes. */
async function withStageMeans(app: TestApp, run: () => Promise<number[]>): Promise<{ times: number[]; stages: string }> {
  const histogram = app.services.metrics.pipelineStage;
  histogram.reset();
  const times = await run();
  const totals = new Map<string, { sum: number; count: number }>();
  for (const value of (await histogram.get()).values) {
    const stage = String(value.labels.stage);
    const total = totals.get(stage) ?? { sum: 0, count: 0 };
    if (value.metricName?.endsWith("_sum")) total.sum += value.value;
    if (value.metricName?.endsWith("_count")) total.count += value.value;
    totals.set(stage, total);
  }
  const mean = (stage: string) => {
    const total = totals.get(stage);
    return total?.count ? fixed((total.sum / total.count) * 1000, 1) : "–";
  };
  return { times, stages: stageOrder.map(mean).join(" / ") };
}

function streamRow({ engine, database, service, model, relay, stages }: StreamRow): string {
  const p = (times: number[] | undefined, q: number) => (times?.length ? fixed(percentile(times, q), 1) : "–");
  const overhead = model ? fixed(percentile(service, 0.5) - percentile(model, 0.5), 1) : "–";
  const goal = model ? `≤ ${firstDeltaOverheadTargetMs}` : "–";
  return (
    `| ${engine} | ${database.name} | ${service.length} | ${p(service, 0.5)} | ${p(service, 0.99)} ` +
    `| ${p(model, 0.5)} | ${p(model, 0.99)} | ${overhead} | ${p(relay, 0.5)} / ${p(relay, 0.99)} | ${goal} | ${stages} |`
  );
}

/**
 * The offline engine: throughput against bare Express, asked the six questions over and over, then customers'
 * questions each once (`customers`: this database's share, none asked on another); then its own time to the first delta.
 */
async function offline(
  database: BenchDatabase,
  bare: { url: string },
  customers: string[],
): Promise<{ load: string[]; costs: RequestCost[]; stream: StreamRow }> {
  const { app, apiKey } = await serviceWithKnowledge(database, chunks, {});
  const questionsFile = path.join(testTempDir("parley-bench-questions"), "questions.json");
  writeFileSync(questionsFile, JSON.stringify(customers));
  try {
    for (const question of questions) await app.request("/api/chat", { key: apiKey, body: { message: question } });
    const bareResult = await load(bare.url, chatRequests(apiKey));
    const loads: Asked[] = [
      { name: "six questions, repeated", profile: "repeated", requests: chatRequests(apiKey) },
      { name: "customers' questions, each once", profile: "distinct", requests: distinctChatRequests(apiKey, questionsFile) },
    ];
    const rows = [loadRow("bare Express", database, bareResult)];
    const costs: RequestCost[] = [];
    for (const asking of loads) {
      const { result, cost } = await measuredLoad(database, app.url, asking);
      rows.push(loadRow(`/api/chat, ${asking.name}`, database, result, bareResult));
      costs.push(cost);
      // autocannon stops at its deadline, not the service: requests in flight then finish within about
      // the slowest latency seen, and must not share the event loop with what is timed next.
      await sleep(2 * result.latency.max + 500);
    }
    const streamed = await withStageMeans(app, () =>
      timesToFirst(sixQuestions(streamedCount), (q) => streamedChat(app.url, apiKey, q)),
    );
    return {
      load: rows,
      costs,
      stream: { engine: "offline", database, service: streamed.times, stages: streamed.stages },
    };
  } finally {
    await app.close();
  }
}

/**
 * The OpenAI engine against the fake model server: the service's first `delta` against the
 * server's own first token to a client that asks it directly, the same reply streamed the same way.
 */
async function openai(database: BenchDatabase): Promise<StreamRow[]> {
  const fake = await startFakeOpenAI();
  const engineEnv = { OPENAI_API_KEY: fake.apiKey, OPENAI_BASE_URL: fake.url };
  const { app, apiKey } = await serviceWithKnowledge(database, chunks, engineEnv);
  try {
    const reply = { text: modelAnswer, deltas: modelDeltas };
    // Each customer message costs two model calls: the router classifies it, then the engine answers. `relay`, when
    // given, gets the time from the model server's first token to the client's first `delta`.
    const turn = async (url: string, message: string, relay?: number[]) => {
      fake.script({ json: { intent: "account_opening", confidence: 0.9 } }, reply);
      let seenAt = 0;
      const first = await streamedChat(url, apiKey, message, (at) => {
        seenAt = at;
      });
      const answered = fake.requests.findLast((request) => request.body?.stream === true)?.firstDeltaAt;
      if (relay && answered !== undefined) relay.push(seenAt - answered);
      return first;
    };
    await turn(app.url, questions[0]!);
    const streamed = await withStageMeans(app, () => timesToFirst(sixQuestions(streamedCount), (q) => turn(app.url, q)));
    const direct = (message: string) => {
      fake.script(reply);
      return timeToFirst(
        () =>
          fetch(`${fake.url}/chat/completions`, {
            method: "POST",
            headers: { authorization: `Bearer ${fake.apiKey}`, "content-type": "application/json" },
            body: JSON.stringify({
              model: "gpt-4o-mini",
              stream: true,
              stream_options: { include_usage: true },
              messages: [{ role: "user", content: message }],
            }),
          }),
        (event) => event.data !== "[DONE]" && Boolean(JSON.parse(event.data).choices[0]?.delta?.content),
      );
    };
    const model = await timesToFirst(sixQuestions(streamedCount), direct);
    const rows: StreamRow[] = [
      { engine: "OpenAI-compatible (fake server)", database, service: streamed.times, model, stages: streamed.stages },
    ];
    // In this process, the client's read of the first `delta` waits behind the rest of the reply's work (its writes):
    // the relay is timed with the service in a process of its own, as `npm start` runs it, on the same database.
    // PGlite's database belongs to this process, so only PostgreSQL's is shared.
    if (app.database.url) {
      const dataDir = testTempDir("parley-bench-relay");
      const service = await startServiceProcess({
        ...engineEnv,
        DATABASE_URL: app.database.url,
        REDIS_URL: "",
        ROLE: "api",
        DATA_DIR: dataDir,
        RATE_LIMIT_MAX: "100000000",
      });
      try {
        const relay: number[] = [];
        await turn(service.url, questions[0]!);
        const times = await timesToFirst(sixQuestions(streamedCount), (q) => turn(service.url, q, relay));
        rows.push({
          engine: "OpenAI-compatible (fake server), service in its own process",
          database,
          service: times,
          model,
          relay: relay.sort((a, b) => a - b),
          stages: "–",
        });
      } finally {
        await service.stop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    }
    return rows;
  } finally {
    await app.close();
    await fake.close();
  }
}

/**
 * /api/chat with a 10,000-chunk knowledge base: requests per second and latency under concurrent
 * load next to a bare Express route in the same process, and the time to the first streamed delta
 * against the model server's own first token.
 */
export async function benchChat(): Promise<void> {
  const { databases, unreachable } = await benchDatabases();
  const bare = await startBareExpress();
  const loadRows: string[] = [];
  const costs: RequestCost[] = [];
  const streamRows: StreamRow[] = [];
  // Each database its own share of the questions: the process remembers the encodings of those asked before.
  const customers = customersQuestions();
  const share = Math.floor(customers.length / Math.max(1, databases.length));
  try {
    for (const [i, database] of databases.entries()) {
      const measured = await offline(database, bare, customers.slice(i * share, (i + 1) * share));
      loadRows.push(...measured.load);
      costs.push(...measured.costs);
      streamRows.push(measured.stream, ...(await openai(database)));
    }
  } finally {
    await bare.close();
  }
  console.log(`\n### Load (${thousands(chunks)} chunks, offline engine, ${durationS} s per row)\n`);
  console.log(
    "| endpoint | database | connections | requests | req/s | p50 (ms) | p99 (ms) | errors / non-2xx | bare : chat | target |",
  );
  console.log("|---|---|---:|---:|---:|---:|---:|---:|---:|---|");
  for (const row of loadRows) console.log(row);
  if (unreachable) console.log(noteRow(10, 1, unreachable));
  console.log("\n### Cost of one `/api/chat` request under that load\n");
  console.log("| database | questions | SQL statements | CPU (ms, process) | CPU target (ms) |");
  console.log("|---|---|---:|---:|---|");
  for (const cost of costs) console.log(costRow(cost));
  for (const cost of costs) {
    if (!cost.top.length) continue;
    console.log(
      `\nBusy time of the service's thread under load, ${cost.database.name}, ${cost.questions}: ${placesLine(cost.top)}`,
    );
  }
  console.log(`\n### Streaming: time to the first \`delta\` (${thousands(chunks)} chunks, one request at a time)\n`);
  console.log(
    "| engine | database | requests | first delta p50 (ms) | p99 (ms) | model server's first token p50 (ms) | p99 (ms) | overhead p50 (ms) | model's first token → client's first delta p50 / p99 (ms) | target (ms) | mean router / retriever / engine / deliver (ms) |",
  );
  console.log("|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|");
  for (const row of streamRows) console.log(streamRow(row));
  if (unreachable) console.log(noteRow(11, 1, unreachable));
}
