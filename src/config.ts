import { z } from "zod";

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
  SECRETS_KEY: optionalString,
  OPENAI_API_KEY: optionalString,
  OPENAI_BASE_URL: optionalString,
  OPENAI_CHAT_MODEL: z.string().default("gpt-4o-mini"),
  OPENAI_EMBEDDING_MODEL: z.string().default("text-embedding-3-small"),
  VECTOR_INDEX: z.enum(["auto", "pgvector", "memory"]).default("auto"),
  // Connections each instance opens to PostgreSQL, and how long a request waits for one before it is answered 503.
  DATABASE_POOL_SIZE: z.coerce.number().int().positive().default(10),
  DATABASE_POOL_TIMEOUT_MS: z.coerce.number().int().positive().default(5_000),
  RATE_LIMIT_MAX: z.coerce.number().int().positive().default(120),
  RATE_LIMIT_WINDOW_S: z.coerce.number().int().positive().default(60),
  TRUST_PROXY: z
    .string()
    .optional()
    .transform((v) => (v === undefined || v === "" ? false : v === "true" ? true : v)),
  WORKER_CONCURRENCY: z.coerce.number().int().positive().default(4),
  // Attempts at sending one reply through a provider; with the queue's backoff, 8 span about two minutes.
  SEND_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(8),
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
