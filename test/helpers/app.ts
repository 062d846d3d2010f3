import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import type { TypedDocumentNode } from "@graphql-typed-document-node/core";
import { print } from "graphql";
import type { DestinationStream } from "pino";
import { issueApiKey } from "../../src/auth/api-keys.js";
import type { Role } from "../../src/auth/roles.js";
import { type Config, loadConfig } from "../../src/config.js";
import { serve } from "../../src/http/serve.js";
import { jobHandlers, jobShares } from "../../src/jobs/handlers.js";
import { Worker } from "../../src/jobs/worker.js";
import { createLogger } from "../../src/logger.js";
import { closeServices, createServices, type Services } from "../../src/services.js";
import { createTenant } from "../../src/tenants/create-tenant.js";
import { createTestDatabase, type TestDatabase } from "./database.js";
import { testTempDir } from "./temp.js";

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RequestOptions {
  method?: string;
  key?: string | null;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface TestApp {
  url: string;
  services: Services;
  database: TestDatabase;
  /** A request to the running service; `body` objects are sent as JSON, strings as they are. */
  request<T = any>(pathname: string, options?: RequestOptions): Promise<ApiResponse<T>>;
  /** A GraphQL operation over HTTP; returns the whole `{data, errors}` result. */
  graphql<TResult, TVariables>(
    document: TypedDocumentNode<TResult, TVariables>,
    variables: TVariables,
    key: string | null,
  ): Promise<{
    status: number;
    data?: TResult | null;
    errors?: Array<{ message: string; extensions?: { code?: string; details?: unknown } }>;
  }>;
  tenant(name?: string): Promise<{ tenantId: string; apiKey: string }>;
  keyFor(tenantId: string, role: Role): Promise<string>;
  /** Runs the service's job handlers in this instance (as ROLE=all does), until close. */
  startWorker(): Worker;
  close(): Promise<void>;
}

export interface TestAppOptions {
  /**
   * Another app's database, for a second instance of the same deployment. Only PostgreSQL can be
   * shared: an in-memory PGlite belongs to the instance that opened it. The owner drops it.
   */
  database?: TestDatabase;
  /** Receives the service's log lines, at the LOG_LEVEL of the env (silent unless given). */
  logDestination?: DestinationStream;
}

/** The service on an ephemeral port; closes what it opened when it cannot get that far. */
async function listening(env: Record<string, string>, options: TestAppOptions, database: TestDatabase, dataDir: string) {
  const config = loadConfig({
    ...process.env,
    NODE_ENV: "test",
    LOG_LEVEL: "silent",
    DATA_DIR: dataDir,
    DATABASE_URL: database.url ?? "",
    // Every test's webhooks come from 127.0.0.1, and in a shared Redis its failures would add up across files
    // and runs: the per-address failure limit is off unless a test sets it (test/channels/source-limit.test.ts).
    WEBHOOK_FAILURE_MAX: "1000000",
    // Every test logs in from 127.0.0.1, whose failed attempts would add up in a shared Redis over a day of runs;
    // the login throttle's own tests speak from addresses of their own and set what they test.
    LOGIN_FREE_ATTEMPTS_PER_ADDRESS: "1000000",
    // Test files run at once against one Redis, all from 127.0.0.1: each file's counters are its own.
    // One per test file (test/setup.ts): its instances count together, and nothing of an earlier file's counts.
    REDIS_KEY_PREFIX: process.env.PARLEY_TEST_REDIS_PREFIX ?? `parley-test:${randomUUID()}:`,
    ...env,
  });
  const services = await createServices(config, {
    pgliteDir: database.pgliteDir,
    pgliteSeed: database.pgliteSeed,
    logger: createLogger(
      { LOG_LEVEL: (process.env.TEST_LOG_LEVEL as Config["LOG_LEVEL"] | undefined) ?? config.LOG_LEVEL },
      options.logDestination,
    ),
  });
  try {
    const server = serve(services, 0, "127.0.0.1");
    await new Promise((resolve, reject) => server.once("listening", resolve).once("error", reject));
    return { services, server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  } catch (err) {
    await closeServices(services);
    throw err;
  }
}

export async function startTestApp(env: Record<string, string> = {}, options: TestAppOptions = {}): Promise<TestApp> {
  if (options.database && !options.database.url) throw new Error("only a PostgreSQL test database can be shared");
  const database = options.database ?? (await createTestDatabase());
  const dataDir = testTempDir("parley-test");
  const discard = async () => {
    if (!options.database) await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  // Nothing is left behind when the app cannot start either: the caller gets no close() to call.
  const { services, server, url } = await listening(env, options, database, dataDir).catch(async (err: unknown) => {
    await discard().catch(() => undefined);
    throw err;
  });

  const workers: Worker[] = [];

  const request = async (pathname: string, options: RequestOptions = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.key) headers.authorization = `Bearer ${options.key}`;
    let body: string | FormData | undefined;
    if (options.body instanceof FormData) {
      body = options.body;
    } else if (options.body !== undefined) {
      body = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
      headers["content-type"] ??= "application/json";
    }
    const res = await fetch(`${url}${pathname}`, { method: options.method ?? (body ? "POST" : "GET"), headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, headers: res.headers, body: parsed as any };
  };

  return {
    url,
    services,
    database,
    request,
    async graphql(document, variables, key) {
      const res = await request("/graphql", { key, body: { query: print(document), variables } });
      return { status: res.status, ...res.body };
    },
    async tenant(name = "Test Bank") {
      const created = await createTenant(services.db.prisma, name);
      return { tenantId: created.tenantId, apiKey: created.apiKey };
    },
    async keyFor(tenantId, role) {
      return (await issueApiKey(services.db.prisma, tenantId, { name: `${role} key`, role })).key;
    },
    startWorker() {
      const worker = new Worker(services, jobHandlers, { pollMs: 25, leaseMs: 30_000, shares: jobShares });
      worker.start();
      workers.push(worker);
      return worker;
    },
    async close() {
      try {
        await Promise.all(workers.map((w) => w.stop()));
        const closed = new Promise((resolve) => server.close(resolve));
        // Open streams (a test that failed mid-way leaves its SSE clients connected) would hold close() up for ever.
        server.closeAllConnections();
        await closed;
        await closeServices(services);
      } finally {
        await discard();
      }
    },
  };
}
