import { z } from "zod";
import { cidrList } from "./http/special-addresses.js";

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === "" ? undefined : v));

const schema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default("0.0.0.0"),
  ROLE: z.enum(["api", "worker", "all"]).default("all"),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  DATA_DIR: z.string().default("./data"),
  DATABASE_URL: optionalString,
  REDIS_URL: optionalString,
  // Put before every key the service keeps in Redis (rate-limit and login counters), so that deployments sharing
  // one Redis count apart; pubsub channels are named by tenant and need none.
  REDIS_KEY_PREFIX: z.string().default("parley:"),
  SECRETS_KEY: optionalString,
  OPENAI_API_KEY: optionalString,
  OPENAI_BASE_URL: optionalString,
  OPENAI_CHAT_MODEL: z.string().default("gpt-4o-mini"),
  OPENAI_EMBEDDING_MODEL: z.string().default("text-embedding-3-small"),
  VECTOR_INDEX: z.enum(["auto", "pgvector", "memory"]).default("auto"),
  // Connections each instance opens to PostgreSQL, and how long a request waits for one before it is answered 503.
  DATABASE_POOL_SIZE: z.coerce.number().int().positive().default(10),
  DATABASE_POOL_TIMEOUT_MS: z.coerce.number().int().positive().default(5_000),
  // How often the embedded database's tables are checked for the vacuum and analyze a server's autovacuum would do.
  EMBEDDED_UPKEEP_INTERVAL_S: z.coerce.number().positive().default(30),
  RATE_LIMIT_MAX: z.coerce.number().int().positive().default(120),
  RATE_LIMIT_WINDOW_S: z.coerce.number().int().positive().default(60),
  // Failed webhook requests (bad signature or token, malformed body, unknown account) one client address may
  // make per window before all its webhook requests are refused with 429 (src/channels/source-limit.ts).
  WEBHOOK_FAILURE_MAX: z.coerce.number().int().positive().default(120),
  WEBHOOK_FAILURE_WINDOW_S: z.coerce.number().int().positive().default(60),
  // The most a tenant's own rate-limit setting may allow, in requests per RATE_LIMIT_WINDOW_S: one tenant's
  // admin must not be able to let its keys take the instance away from the others.
  RATE_LIMIT_TENANT_MAX: z.coerce.number().int().positive().default(1200),
  // Login attempts without a success, per account and per client address, before each further one waits a delay
  // that doubles (1 s, 2 s, 4 s …) up to LOGIN_MAX_DELAY_S; a success clears the account's count.
  LOGIN_FREE_ATTEMPTS_PER_ACCOUNT: z.coerce.number().int().positive().default(5),
  LOGIN_FREE_ATTEMPTS_PER_ADDRESS: z.coerce.number().int().positive().default(20),
  LOGIN_MAX_DELAY_S: z.coerce.number().int().positive().default(900),
  // Origins (scheme://host[:port]) whose pages may call /graphql from a browser; none by default.
  GRAPHQL_CORS_ORIGINS: z
    .string()
    .default("")
    .transform((v) =>
      v
        .split(",")
        .map((origin) => origin.trim().replace(/\/$/, ""))
        .filter(Boolean),
    ),
  // What one GraphQL operation may ask, checked before it runs (src/graphql/limits.ts). The minimums are what the
  // service's own operations (the REST shim's) need: depth 7, a few hundred tokens, a cost of 5,605 at their largest page.
  GRAPHQL_MAX_TOKENS: z.coerce.number().int().min(1_000).default(2_000),
  GRAPHQL_MAX_DEPTH: z.coerce.number().int().min(7).default(10),
  GRAPHQL_MAX_ALIASES: z.coerce.number().int().min(0).default(20),
  GRAPHQL_MAX_DIRECTIVES: z.coerce.number().int().min(0).default(20),
  GRAPHQL_MAX_COST: z.coerce.number().int().min(6_000).default(10_000),
  // Schema introspection: on outside production, off in production unless set to true.
  GRAPHQL_INTROSPECTION: z
    .enum(["true", "false", ""])
    .optional()
    .transform((v) => (v === "true" ? true : v === "false" ? false : undefined)),
  TRUST_PROXY: z
    .string()
    .optional()
    .transform((v) => (v === undefined || v === "" ? false : v === "true" ? true : v)),
  WORKER_CONCURRENCY: z.coerce.number().int().positive().default(4),
  // How long a job stays reserved for its worker without a heartbeat: on PostgreSQL, the longest a job of
  // an instance that died waits before another takes it over (the embedded database frees them at start).
  JOB_LEASE_MS: z.coerce.number().int().min(1_000).default(60_000),
  // Attempts at sending one reply through a provider; with the queue's backoff, 8 span about two minutes.
  SEND_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(8),
  // The most a client may take to send a request (headers and body; a response, a stream included, is not limited):
  // a client sending a body a byte a second held its socket for Node's default of five minutes.
  HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1_000).default(60_000),
  // Open sockets an instance accepts at most (widgets' event streams each hold one); past it new ones are closed.
  HTTP_MAX_CONNECTIONS: z.coerce.number().int().positive().default(10_000),
  // How long a stopping instance waits for in-flight requests and jobs before it closes its connections regardless.
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().positive().default(20_000),
  PUBLIC_BASE_URL: optionalString,
  // A comment on open chat streams this often keeps proxies from closing them as idle.
  SSE_HEARTBEAT_MS: z.coerce.number().int().positive().default(15_000),
  // A working day and then some: a dashboard left open overnight asks for the password again.
  SESSION_TTL_HOURS: z.coerce
    .number()
    .positive()
    .max(24 * 30)
    .default(12),
  // Provider APIs replies are sent through; tests point them at local fakes.
  MESSAGING_API_URL: z.string().url().default("https://graph.facebook.com/v21.0"),
  TWILIO_API_URL: z.string().url().default("https://api.twilio.com"),
  AFRICASTALKING_API_URL: z.string().url().default("https://api.africastalking.com"),
  TELEGRAM_API_URL: z.string().url().default("https://api.telegram.org"),
  X_API_URL: z.string().url().default("https://api.x.com"),
  SLACK_API_URL: z.string().url().default("https://slack.com/api"),
  // Internal address ranges the service may fetch tenant-chosen URLs from (crawls); none unless the operator
  // opens them, e.g. "10.20.0.0/16,fd00:1::/64" for an intranet. Separated by commas or spaces.
  EGRESS_ALLOW_CIDRS: z
    .string()
    .default("")
    .transform((value, ctx) => {
      const cidrs = value.split(/[\s,]+/).filter(Boolean);
      try {
        cidrList(cidrs);
      } catch (error) {
        ctx.addIssue({ code: "custom", message: (error as Error).message });
      }
      return cidrs;
    }),
  // Waits before each retry of an event notification that failed (seconds, comma-separated): with the first attempt,
  // about a day of exponential backoff (5 s, 5 min, 30 min, 2 h, 5 h, 8 h, 8 h). Then the delivery has failed, and an
  // endpoint that received nothing since that event is disabled.
  WEBHOOK_RETRY_SCHEDULE_S: z
    .string()
    .default("5,300,1800,7200,18000,28800,28800")
    .transform((value, ctx) => {
      const steps = value
        .split(/[\s,]+/)
        .filter(Boolean)
        .map(Number);
      if (!steps.length || steps.some((s) => !Number.isFinite(s) || s < 0 || s > 7 * 86_400)) {
        ctx.addIssue({ code: "custom", message: "a comma-separated list of waits in seconds (0 to 604800)" });
      }
      return steps;
    }),
  // How long a tenant's endpoint may take to answer one event notification.
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().positive().default(15_000),
  // Untrusted documents (crawled pages, uploaded PDFs) are read in worker threads with these caps.
  EXTRACT_THREADS: z.coerce.number().int().min(1).max(32).default(2),
  EXTRACT_TIMEOUT_MS: z.coerce.number().int().positive().default(120_000),
  // Heap of each extraction thread; a document that needs more fails instead of exhausting the process.
  EXTRACT_MAX_HEAP_MB: z.coerce.number().int().min(64).default(512),
  // All compressed streams of a PDF together, once decompressed: a decompression bomb stops here.
  EXTRACT_MAX_DECOMPRESSED_MB: z.coerce.number().int().positive().default(256),
  EXTRACT_MAX_PAGES: z.coerce.number().int().positive().default(2_000),
  EXTRACT_MAX_CHARS: z.coerce.number().int().positive().default(5_000_000),
});

export type Config = z.infer<typeof schema>;

/** The only reader of process.env: everything else receives a Config. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`Invalid configuration: ${problems}`);
  }
  return parsed.data;
}

/** The address customers and providers reach the service at, without a trailing slash. */
export function publicBaseUrl(config: Pick<Config, "PUBLIC_BASE_URL" | "PORT">): string {
  return (config.PUBLIC_BASE_URL ?? `http://localhost:${config.PORT}`).replace(/\/$/, "");
}
