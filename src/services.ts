import { setMaxListeners } from "node:events";
import { Redis } from "ioredis";
import type { DestinationStream, Logger } from "pino";
import { LoginThrottle } from "./agents/login-throttle.js";
import { createEmbedder, type Embedder } from "./ai/embeddings.js";
import type { Engine } from "./ai/engine.js";
import { defaultIntentClassifier } from "./ai/intents/defaults.js";
import { TenantIntentModels } from "./ai/intents/tenant.js";
import { bankingLexicon } from "./ai/lexicon.js";
import { LocalEngine } from "./ai/local.js";
import { OpenAIEngine } from "./ai/openai.js";
import { warmMeaning } from "./ai/semantic.js";
import { ModelTrainer } from "./ai/trainer.js";
import type { Config } from "./config.js";
import { type Database, openDatabase } from "./db/client.js";
import { loadSecretsKey, SecretBox } from "./db/encryption.js";
import { migrate } from "./db/migrate.js";
import { type EmbeddedUpkeep, startEmbeddedUpkeep } from "./db/upkeep.js";
import { EventOutbox } from "./events/outbox.js";
import { Egress } from "./http/egress.js";
import { warmRequestLookups } from "./http/warm-up.js";
import { JobQueue } from "./jobs/queue.js";
import { warmTokenizer } from "./knowledge/chunk.js";
import { DocumentReader } from "./knowledge/extraction-pool.js";
import { FaqEntryModels } from "./knowledge/faq-entries.js";
import { RememberedSearches } from "./knowledge/remembered-searches.js";
import type { KnowledgeHit } from "./knowledge/search.js";
import { TermIndex } from "./knowledge/term-index.js";
import { createVectorIndex, type VectorIndex } from "./knowledge/vector-index.js";
import { createLogger } from "./logger.js";
import { createMetrics, type Metrics } from "./metrics.js";
import { createRealtimeBus, type RealtimeBus } from "./realtime/pubsub.js";
import { TenantCache } from "./tenants/cache.js";

/** Everything a request handler, resolver or job needs, created once per process. */
export interface Services {
  config: Config;
  logger: Logger;
  db: Database;
  /** The vacuum and analyze the embedded database has no autovacuum for (src/db/upkeep.ts); null on PostgreSQL. */
  upkeep: EmbeddedUpkeep | null;
  /** Shared by the rate limiter and anything else that needs Redis; null on the embedded defaults. */
  redis: Redis | null;
  realtime: RealtimeBus;
  /** Tenants' settings and API keys as requests read them, forgotten on every instance when they change. */
  tenants: TenantCache;
  /** Dashboard login attempts per account and address, in Redis when configured. */
  loginThrottle: LoginThrottle;
  secrets: SecretBox;
  jobs: JobQueue;
  /** Event notifications to tenants' endpoints: recorded in the transaction of the change that causes them. */
  events: EventOutbox;
  metrics: Metrics;
  /** Trains intent and FAQ entry classifiers in a worker thread. */
  trainer: ModelTrainer;
  intents: TenantIntentModels;
  /** Each tenant's FAQ entry classifier, a relevance signal of knowledge search. */
  faqEntries: FaqEntryModels;
  /** The offline engine, or an OpenAI-compatible model server when OPENAI_API_KEY is set (DESIGN §4). */
  engine: Engine;
  embedder: Embedder;
  vectors: VectorIndex;
  /** Tenants' chunks by word, for the full-text half of knowledge search. */
  termIndex: TermIndex;
  /** Recent knowledge searches' results, used while the tenant's knowledge stays as it was (remembered-searches.ts). */
  searches: RememberedSearches<readonly KnowledgeHit[]>;
  /** Outbound HTTP to URLs tenants chose: internal addresses refused unless the operator opened them. */
  egress: Egress;
  /** Reads crawled pages and PDFs in worker threads, within the operator's caps. */
  reader: DocumentReader;
  /** Aborted when the process starts to stop: chat streams end on it instead of holding the shutdown up. */
  shutdown: AbortController;
}

export interface ServiceOverrides {
  logger?: Logger;
  /** Where the service's own logger writes (stdout by default); tests read it. */
  logDestination?: DestinationStream;
  /** Tests pass `memory://` for a throw-away embedded database. */
  pgliteDir?: string;
  /** What that database starts from (DatabaseOptions.pgliteSeed). */
  pgliteSeed?: Uint8Array;
}

export async function createServices(config: Config, overrides: ServiceOverrides = {}): Promise<Services> {
  const logger = overrides.logger ?? createLogger(config, overrides.logDestination);
  // What a failed start had already opened is closed: the database (the embedded one's lock), its thread, timers and
  // subscriptions would otherwise outlive the error in a program that goes on.
  const parts: Partial<Services> = {};
  const keep = <K extends keyof Services>(name: K, part: Services[K]): Services[K] => {
    parts[name] = part;
    return part;
  };
  try {
    return await assemble(config, overrides, logger, keep);
  } catch (err) {
    await closeParts(parts).catch((closeErr: unknown) => logger.warn({ err: closeErr }, "closing a failed start failed"));
    throw err;
  }
}

/** What requests use from the first on, learnt at start rather than by the first customer's request. */
function learnStartModels(): void {
  // Retrieval re-ranks with it.
  bankingLexicon();
  // Answers every tenant until its own classifier is trained.
  defaultIntentClassifier();
  // Every answer counts the conversation's tokens.
  warmTokenizer();
}

async function assemble(
  config: Config,
  overrides: ServiceOverrides,
  logger: Logger,
  keep: <K extends keyof Services>(name: K, part: Services[K]) => Services[K],
): Promise<Services> {
  // The embedded database opens in a thread of its own (seconds on a new data directory) and the sentence encoder loads
  // in another: the models this thread learns at start are learnt meanwhile, not after them.
  const opening = openDatabase({
    url: config.DATABASE_URL,
    pgliteDir: overrides.pgliteDir ?? `${config.DATA_DIR}/pglite`,
    pgliteSeed: overrides.pgliteSeed,
    poolSize: config.DATABASE_POOL_SIZE,
    poolTimeoutMs: config.DATABASE_POOL_TIMEOUT_MS,
  }).then((db) => keep("db", db));
  const meaning = warmMeaning(logger);
  try {
    learnStartModels();
  } finally {
    // Awaited either way, so that a failed start closes the database it opened.
    await Promise.allSettled([opening, meaning]);
  }
  const db = await opening;
  await meaning;
  const applied = await migrate(db.sql);
  if (applied.length) logger.info({ migrations: applied }, "applied database migrations");
  const upkeep = keep(
    "upkeep",
    db.kind === "pglite" ? startEmbeddedUpkeep(db.sql, logger, config.EMBEDDED_UPKEEP_INTERVAL_S * 1000) : null,
  );
  const redis = keep(
    "redis",
    config.REDIS_URL
      ? new Redis(config.REDIS_URL, {
          maxRetriesPerRequest: 3,
          enableOfflineQueue: false,
          // A Redis that stops answering must not hang requests: the rate limiter falls back to memory.
          commandTimeout: 1_000,
        })
      : null,
  );
  // Without a listener, ioredis reports a lost connection as an unhandled error, which ends the process.
  redis?.on("error", (err) => logger.warn({ err }, "Redis connection failed"));
  const realtime = keep("realtime", createRealtimeBus(config.REDIS_URL, logger, config.REDIS_KEY_PREFIX));
  const tenants = keep("tenants", new TenantCache({ db, realtime, logger }));
  tenants.start();
  const loginThrottle = new LoginThrottle(redis, config);
  const secrets = new SecretBox(loadSecretsKey(config.SECRETS_KEY, config.DATA_DIR));
  const jobs = new JobQueue(db, realtime.pubsub, logger);
  if (db.kind === "pglite") await jobs.releaseAbandoned();
  const events = keep("events", new EventOutbox({ pubsub: realtime.pubsub, jobs, config, logger }));
  events.start();
  const searches = new RememberedSearches<readonly KnowledgeHit[]>();
  const metrics = createMetrics(
    () => jobs,
    () => searches.counts,
  );
  const trainer = keep("trainer", new ModelTrainer());
  const intents = new TenantIntentModels({ db, tenants, logger }, trainer);
  const faqEntries = keep("faqEntries", new FaqEntryModels({ db, realtime, logger, searches }, trainer));
  faqEntries.start();
  const engine: Engine = config.OPENAI_API_KEY ? OpenAIEngine.fromConfig(config) : new LocalEngine();
  const embedder = createEmbedder(config);
  // Tenants' graphs are saved beside the embedded database, so that a restart loads them (DESIGN §5).
  const vectors = keep(
    "vectors",
    await createVectorIndex({ db, realtime, logger, searches }, config, { snapshotDir: `${config.DATA_DIR}/vector-index` }),
  );
  await vectors.start();
  const termIndex = keep("termIndex", new TermIndex({ db, realtime, logger, searches }));
  termIndex.start();
  logger.info({ engine: engine.name, embedder: embedder.name, vectorIndex: vectors.kind }, "AI services ready");
  const egress = keep("egress", new Egress({ allowCidrs: config.EGRESS_ALLOW_CIDRS }));
  const reader = keep(
    "reader",
    new DocumentReader({
      threads: config.EXTRACT_THREADS,
      timeoutMs: config.EXTRACT_TIMEOUT_MS,
      maxHeapMb: config.EXTRACT_MAX_HEAP_MB,
      limits: {
        maxChars: config.EXTRACT_MAX_CHARS,
        maxPages: config.EXTRACT_MAX_PAGES,
        maxDecompressedBytes: config.EXTRACT_MAX_DECOMPRESSED_MB * 1024 * 1024,
      },
    }),
  );
  const shutdown = new AbortController();
  // One listener per open chat stream: many at once are expected, not a leak.
  setMaxListeners(0, shutdown.signal);
  const services: Services = {
    config,
    logger,
    db,
    upkeep,
    redis,
    realtime,
    tenants,
    loginThrottle,
    secrets,
    jobs,
    events,
    metrics,
    trainer,
    intents,
    faqEntries,
    engine,
    embedder,
    vectors,
    termIndex,
    searches,
    egress,
    reader,
    shutdown,
  };
  await warmRequestLookups(services);
  return services;
}

export async function closeServices(services: Services): Promise<void> {
  services.shutdown.abort();
  await closeParts(services);
}

/** Stops what is there of the services, in the order that lets each finish with what it uses. */
async function closeParts(parts: Partial<Services>): Promise<void> {
  // The database closes whatever the steps before it met: the embedded one's lock would otherwise refuse the next start.
  try {
    await parts.upkeep?.stop();
    await parts.events?.stop();
    await parts.vectors?.stop();
    await parts.termIndex?.stop();
    await parts.reader?.close();
    await parts.egress?.close();
    await parts.faqEntries?.stop();
    await parts.trainer?.close();
    await parts.tenants?.stop();
    await parts.realtime?.close();
    parts.redis?.disconnect();
  } finally {
    await parts.db?.close();
  }
}
