import { randomBytes, randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import autocannon from "autocannon";
import { Redis } from "ioredis";
import pg from "pg";
import { type FakeProviders, startFakeProviders } from "../fakes/providers.js";
import { testTempDir } from "../helpers/temp.js";
import { chatRequests, questions, serviceWithKnowledge, streamedChat } from "./chat-requests.js";
import { configureChatapp, eventRequest, postEvent } from "./chatapp.js";
import { type BenchDatabase, benchDatabases, fixed, numberFrom, percentile, thousands } from "./harness.js";
import { type CpuWindow, cpuOver } from "./process-cpu.js";
import { type ServiceProcess, startServiceProcess } from "./service-process.js";

const chunks = numberFrom("BENCH_SCALE_CHUNKS", 3_000);
const durationS = numberFrom("BENCH_SCALE_DURATION_S", 20);
const connections = numberFrom("BENCH_SCALE_CONNECTIONS", 8);
const streamClients = numberFrom("BENCH_SCALE_STREAMS", 2);
const ratePerS = numberFrom("BENCH_SCALE_RATE", 20);
// Other work on the machine comes and goes: rounds of every topology in turn, each compared with its own round's (a).
const rounds = numberFrom("BENCH_SCALE_ROUNDS", 1);
// Enough that a slow acknowledgement does not hold the rate back; a multiple of every topology's API count.
const webhookConnections = 20;
const redisUrl = process.env.BENCH_REDIS_URL ?? process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

/** How a deployment runs its processes: ROLE=all alone is what `npm start` gives; the others split HTTP from jobs. */
interface Topology {
  name: string;
  roles: Array<"all" | "api" | "worker">;
}

const topologies: Topology[] = [
  { name: "(a) 1 API + 1 worker", roles: ["api", "worker"] },
  { name: "(b) 2 API + 1 worker", roles: ["api", "api", "worker"] },
  { name: "(c) 1 process, ROLE=all", roles: ["all"] },
];

interface Row {
  round: number;
  topology: Topology;
  chat: autocannon.Result;
  /** Milliseconds to each stream's first `delta`, sorted. */
  firstDeltas: number[];
  acks: autocannon.Result;
  /** Milliseconds from each event's post to its reply at the fake provider, sorted. */
  endToEnd: number[];
  /** Replies at the provider per second, from the first post to the last reply. */
  repliesPerS: number;
  /** Replies that reached the provider while the load ran, the CPU window. */
  repliesInWindow: number;
  /** The service processes' labels in `cpu.cores`. */
  services: string[];
  cpu: CpuWindow<unknown>;
}

/** Where Redis can be reached, and its server's process id (for its CPU: the server is shared with all its users). */
async function redisServer(): Promise<{ pid: number } | { unreachable: string }> {
  const redis = new Redis(redisUrl, {
    lazyConnect: true,
    connectTimeout: 3_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  // The client's own error (ECONNREFUSED, say) says more than the rejection of connect(), and unheard it is logged.
  let refused: Error | null = null;
  redis.on("error", (err: Error) => {
    refused = err;
  });
  try {
    await redis.connect();
    const pid = Number((await redis.info("server")).match(/^process_id:(\d+)/m)?.[1]);
    return { pid };
  } catch (err) {
    return { unreachable: `${new URL(redisUrl).host} unreachable (${(refused ?? (err as Error)).message})` };
  } finally {
    redis.disconnect();
  }
}

const isLocal = (url: string) => ["127.0.0.1", "localhost", "[::1]"].includes(new URL(url).hostname);

/** The server processes of the connections to the database at `url`, when its server runs on this machine. */
async function backendPids(url: string): Promise<number[]> {
  if (!isLocal(url)) return [];
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
    );
    return rows.map((r) => r.pid);
  } finally {
    await client.end();
  }
}

/** Streamed /api/chat requests, `streamClients` at a time, over the API instances in turn until `deadline`. */
async function streams(urls: string[], apiKey: string, deadline: number): Promise<number[]> {
  const times: number[] = [];
  let sent = 0;
  const client = async () => {
    while (Date.now() < deadline) {
      const n = sent++;
      times.push(await streamedChat(urls[n % urls.length]!, apiKey, questions[n % questions.length]!));
    }
  };
  await Promise.all(Array.from({ length: streamClients }, client));
  return times.sort((a, b) => a - b);
}

/**
 * Every process's first requests pay for what it does on first use (the tenant's vector index built from the
 * database, caches filled): each API instance answers each question once and streams once, and the worker answers
 * a few events, before the load. Returns how many events were posted.
 */
async function warmUp(apis: string[], apiKey: string, providers: FakeProviders): Promise<number> {
  let events = 0;
  for (const url of apis) {
    for (const message of questions) {
      const res = await fetch(`${url}/api/chat`, {
        method: "POST",
        headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ message }),
      });
      if (res.status !== 200) throw new Error(`warming ${url} up failed: HTTP ${res.status} ${await res.text()}`);
    }
    await streamedChat(url, apiKey, questions[0]!);
    for (let i = 0; i < 3; i++) await postEvent(url, ++events);
  }
  await providers.waitForSends(events, 300_000);
  return events;
}

/** A topology's processes, started on one database and one Redis. */
interface Deployment {
  processes: Array<ServiceProcess & { label: string }>;
  /** The HTTP addresses of the processes that serve it. */
  apis: string[];
  stop(): Promise<void>;
}

async function startDeployment(topology: Topology, env: Record<string, string>): Promise<Deployment> {
  const apiCount = topology.roles.filter((role) => role === "api").length;
  let apiNumber = 0;
  const labels = topology.roles.map((role) =>
    role === "api" ? (apiCount > 1 ? `API ${++apiNumber}` : "API") : role === "all" ? "ROLE=all" : "worker",
  );
  // DATA_DIR is an instance's own: the vector index keeps its files there.
  const dataDirs = topology.roles.map(() => testTempDir("parley-bench-scale"));
  const starts = await Promise.allSettled(
    topology.roles.map((role, i) => startServiceProcess({ ...env, ROLE: role, DATA_DIR: dataDirs[i]! })),
  );
  const processes: Deployment["processes"] = [];
  for (const [i, start] of starts.entries())
    if (start.status === "fulfilled") processes.push({ ...start.value, label: labels[i]! });
  const stop = async () => {
    await Promise.all(processes.map((p) => p.stop()));
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  };
  const failed = starts.find((start) => start.status === "rejected");
  if (failed) {
    await stop();
    throw failed.reason;
  }
  return { processes, apis: processes.filter((p) => p.label !== "worker").map((p) => p.url), stop };
}

/** Chat, streams and webhooks at once for `durationS`, spread over the API instances; then every reply awaited. */
async function mixedLoad(
  deployment: Deployment,
  apiKey: string,
  providers: FakeProviders,
  databaseUrl: string,
  redisPid: number,
) {
  const { apis, processes } = deployment;
  const warmEvents = await warmUp(apis, apiKey, providers);
  const postedAt = new Map<string, number>();
  const repliedBefore = providers.sends.length;
  const groups = async () =>
    new Map<string, number[]>([
      ...processes.map((p): [string, number[]] => [p.label, [p.pid]]),
      ["PostgreSQL", await backendPids(databaseUrl)],
      ["Redis (whole server)", isLocal(redisUrl) ? [redisPid] : []],
      ["load generator", [process.pid]],
    ]);
  const started = Date.now();
  const cpu = await cpuOver(groups, () =>
    Promise.all([
      // autocannon spreads its connections over the URLs given, round-robin (its README, `url`); its types know one.
      autocannon({
        url: apis as unknown as string,
        connections,
        duration: durationS,
        workers: 1,
        requests: chatRequests(apiKey),
      }),
      streams(apis, apiKey, started + durationS * 1000),
      autocannon({
        url: apis as unknown as string,
        connections: webhookConnections,
        overallRate: ratePerS,
        duration: durationS,
        requests: [eventRequest(postedAt, warmEvents + 1)],
      }),
    ]),
  );
  const [chat, firstDeltas, acks] = cpu.result;
  const accepted = acks.requests.total - acks.non2xx;
  const replies = (await providers.waitForSends(repliedBefore + accepted, 600_000)).slice(repliedBefore);
  const endToEnd = replies.map((s) => s.at - postedAt.get(s.body.to)!).sort((a, b) => a - b);
  const last = Math.max(...replies.map((s) => s.at));
  const repliesInWindow = replies.filter((s) => s.at <= started + cpu.seconds * 1000).length;
  const repliesPerS = accepted / ((last - started) / 1000);
  return { chat, firstDeltas, acks, endToEnd, repliesPerS, repliesInWindow, services: processes.map((p) => p.label), cpu };
}

/** One topology on a database of its own, set up by an instance in this process, under the mixed load. */
async function measure(database: BenchDatabase, topology: Topology, round: number, redisPid: number): Promise<Row> {
  const providers = await startFakeProviders();
  try {
    const shared = {
      ...providers.env,
      // Channel credentials are encrypted at rest: every instance must hold the one key.
      SECRETS_KEY: randomBytes(32).toString("hex"),
      // Benchmarks measure the service, not the rate limiter that would refuse their load.
      RATE_LIMIT_MAX: "100000000",
    };
    // The instance here only sets the deployment up (tenant, knowledge, channel) and then idles: without Redis,
    // it hears none of the others' announcements.
    const { app, apiKey } = await serviceWithKnowledge(database, chunks, { ...shared, REDIS_URL: "" });
    try {
      await configureChatapp(app.url, apiKey);
      const databaseUrl = app.database.url!;
      const deployment = await startDeployment(topology, {
        ...shared,
        DATABASE_URL: databaseUrl,
        REDIS_URL: redisUrl,
        REDIS_KEY_PREFIX: `parley-bench-scale:${randomUUID()}:`,
      });
      try {
        return { round, topology, ...(await mixedLoad(deployment, apiKey, providers, databaseUrl, redisPid)) };
      } finally {
        await deployment.stop();
      }
    } finally {
      await app.close();
    }
  } finally {
    await providers.close();
  }
}

const ms = (sorted: number[], p: number) => (sorted.length ? thousands(Math.round(percentile(sorted, p))) : "–");
const ratio = (value: number, base: number) => `×${fixed(value / base, 2)}`;

function printLoadRow(row: Row, base: Row): void {
  const { chat, acks } = row;
  const chatErrors = chat.non2xx + chat.errors + chat.timeouts;
  const ackErrors = acks.non2xx + acks.errors + acks.timeouts;
  const streamsPerS = row.firstDeltas.length / durationS;
  const baseStreams = base.firstDeltas.length / durationS;
  console.log(
    `| ${row.round} | ${row.topology.name} | ${fixed(chat.requests.average, 1)} | ${chat.latency.p50} / ${chat.latency.p99} ` +
      `| ${fixed(streamsPerS, 1)} | ${ms(row.firstDeltas, 0.5)} | ${thousands(acks.requests.total)} | ${acks.latency.p50} / ${acks.latency.p99} ` +
      `| ${fixed(row.repliesPerS, 1)} | ${ms(row.endToEnd, 0.5)} / ${ms(row.endToEnd, 0.99)} | ${chatErrors} / ${ackErrors} ` +
      `| ${ratio(chat.requests.average, base.chat.requests.average)} / ${ratio(streamsPerS, baseStreams)} / ${ratio(row.repliesPerS, base.repliesPerS)} |`,
  );
}

/** CPU milliseconds the processes labelled `labels` used per unit of work done in the window; "–" where unknown. */
function cpuPer(row: Row, labels: string[], units: number): string {
  const used = labels.map((label) => row.cpu.cores.get(label));
  if (!units || used.some((cores) => cores == null)) return "–";
  return fixed((used.reduce((sum: number, cores) => sum + cores!, 0) * row.cpu.seconds * 1000) / units, 1);
}

function printCpuRow(row: Row): void {
  const { cpu } = row;
  const cores = [...cpu.cores].map(([label, used]) => `${label} ${used === null ? "–" : fixed(used, 2)}`).join(", ");
  const apiLabels = row.services.filter((label) => label.startsWith("API"));
  const served = row.chat.requests.total + row.firstDeltas.length;
  const split = row.topology.roles.includes("worker");
  console.log(
    `| ${row.round} | ${row.topology.name} | ${cores} | ${fixed(cpu.machineBusy * 100, 0)} % | ${fixed(cpu.load[0], 1)} → ${fixed(cpu.load[1], 1)} ` +
      `| ${split ? cpuPer(row, apiLabels, served) : "–"} | ${split ? cpuPer(row, ["worker"], row.repliesInWindow) : "–"} ` +
      `| ${cpuPer(row, row.services, served + row.repliesInWindow)} |`,
  );
}

/**
 * One deployment on one PostgreSQL and one Redis, its processes started as `npm start` runs them, under the same
 * mixed load spread over its API instances: /api/chat at a fixed number of connections, streamed chats, and
 * signed chat-app webhooks at a fixed rate answered by the worker through the fake provider. Throughput and
 * latency per topology, each process's CPU, and the throughput against one API instance's.
 */
export async function benchScale(): Promise<void> {
  const postgres = (await benchDatabases()).databases.find((d) => d.name === "PostgreSQL");
  const redis = await redisServer();
  if (!postgres) return console.log("Not measured: the scale suite needs PostgreSQL (unreachable, or BENCH_DATABASE_URL empty).");
  if ("unreachable" in redis) return console.log(`Not measured: the scale suite needs Redis (${redis.unreachable}).`);
  const rows: Row[] = [];
  for (let round = 1; round <= rounds; round++)
    for (const topology of topologies) rows.push(await measure(postgres, topology, round, redis.pid));
  console.log(
    `\n### Mixed load for ${durationS} s: /api/chat at ${connections} connections, ${streamClients} streaming clients, ` +
      `webhooks at ${ratePerS} events/s (${thousands(chunks)} chunks, offline engine, PostgreSQL + Redis)\n`,
  );
  console.log(
    "| round | topology | chat req/s | chat p50 / p99 (ms) | streams/s | first delta p50 (ms) | webhooks acked | ack p50 / p99 (ms) " +
      "| replies/s | end-to-end p50 / p99 (ms) | errors chat / webhooks | vs (a): chat / streams / replies |",
  );
  console.log("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const row of rows) printLoadRow(row, rows.find((r) => r.round === row.round)!);
  console.log("\n### Where the CPU went while the load ran\n");
  console.log(
    "| round | topology | CPU (cores: 1 = one core busy throughout) | machine busy | load average (1 min, start → end) " +
      "| API CPU per chat or stream (ms, acks included) | worker CPU per reply (ms) | service CPU per chat, stream or reply (ms) |",
  );
  console.log("|---:|---|---|---:|---:|---:|---:|---:|");
  for (const row of rows) printCpuRow(row);
}
