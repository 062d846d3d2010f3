import type { Logger } from "pino";
import type { EntryClassifier } from "../ai/entry-classifier.js";
import { passageOf } from "../ai/relevance.js";
import type { EntryTexts, ModelTrainer } from "../ai/trainer.js";
import type { Database } from "../db/client.js";
import type { RealtimeBus } from "../realtime/pubsub.js";
import type { KnowledgeChanges } from "./remembered-searches.js";

// Training costs about 60 × 2 × 512 multiply-adds per text and entry (seconds for a 70-entry FAQ). Past this many
// texts × entries (about 200 entries) the tenant's answers go without the classifier rather than wait minutes for it.
const maxTrainingCost = 250_000;
// A softmax over a handful of entries is sure of itself on anything: over three, it gave 0.84 to the wrong one for a
// plain question. The answer sets it was measured on have 14 to 79 entries.
const minEntries = 10;
// A crawl announces each page it indexes: the tenant is retrained once its changes pause this long.
const settleMs = 2_000;
// USE reads sentences; a fragment of two words says little about the entry.
const minSentenceWords = 3;

interface TenantEntries {
  /** The tenant's FAQ units when the model was trained: chunk ids, which are never reused for another text. */
  ids: Set<string>;
  model: EntryClassifier | null;
}

export interface FaqEntryDeps {
  db: Database;
  realtime: RealtimeBus;
  logger: Logger;
  /** Told when a tenant's classifier changes: searches rank with it. */
  searches: KnowledgeChanges;
}

/** What stands for an FAQ entry in training: its question, the question with its answer, and the answer's sentences. */
export function entryTexts(question: string, answer: string): string[] {
  const sentences = answer
    .split(/(?<=[.!?])\s+/)
    .map((s) => s.trim())
    .filter((s) => s.split(/\s+/).length >= minSentenceWords);
  return [question, `${question} ${answer}`, ...sentences];
}

/**
 * Each tenant's FAQ entry classifier (src/ai/entry-classifier.ts), trained in the model trainer's thread and kept per
 * instance. A model is current while the tenant's FAQ units are those it learned:
 * - every change of a tenant's chunks is announced (`knowledge:changed`, across instances) and every instance retrains
 *   that tenant's model at once if its units differ; instances also train every tenant's model as they start;
 * - a question never waits for a training: while its candidates hold an entry the model does not know (added since,
 *   or no model yet), it is ranked without the classifier, by the relevance model fitted without it, and a training
 *   is started if none is under way. Evaluations, which compare runs, wait for the current model (`ready`).
 */
export class FaqEntryModels {
  readonly #models = new Map<string, TenantEntries>();
  readonly #training = new Map<string, Promise<TenantEntries>>();
  /** Refreshes asked for while one runs: one more is enough, as it reads the tenant's units when it starts. */
  readonly #queued = new Map<string, Promise<TenantEntries>>();
  readonly #settling = new Map<string, NodeJS.Timeout>();
  #unsubscribe: () => Promise<unknown> = async () => undefined;
  #listening: Promise<void> = Promise.resolve();
  #stopped = false;

  constructor(
    private readonly deps: FaqEntryDeps,
    private readonly trainer: ModelTrainer,
  ) {}

  start(): void {
    const subscription = this.deps.realtime.pubsub.subscribe("knowledge:changed");
    this.#unsubscribe = () => subscription.return();
    this.#listening = (async () => {
      for await (const { tenantId } of subscription) this.#changed(tenantId);
    })().catch((err: unknown) => this.deps.logger.error({ err }, "FAQ entry models stopped listening for changes"));
    this.#warm().catch((err: unknown) => this.deps.logger.warn({ err }, "could not train the FAQ entry classifiers at start"));
  }

  /** Not awaited by the stop: a training under way is abandoned when the trainer closes. */
  async stop(): Promise<void> {
    this.#stopped = true;
    for (const timer of this.#settling.values()) clearTimeout(timer);
    this.#settling.clear();
    await this.#unsubscribe();
    await this.#listening;
  }

  /**
   * Trains every tenant's classifier after a start, one after the other in the trainer's thread, so that questions
   * after a restart soon rank with it (until then they rank without it, as `model` says).
   */
  async #warm(): Promise<void> {
    const tenants = await this.deps.db.sql.query<{ tenant_id: string }>("SELECT DISTINCT tenant_id FROM chunks");
    for (const { tenant_id } of tenants) {
      if (this.#stopped) return;
      if (!this.#models.has(tenant_id)) await this.#refresh(tenant_id).catch(() => undefined);
    }
  }

  #changed(tenantId: string): void {
    clearTimeout(this.#settling.get(tenantId));
    const timer = setTimeout(() => {
      this.#settling.delete(tenantId);
      if (!this.#stopped) this.#refresh(tenantId).catch(() => undefined);
    }, settleMs);
    timer.unref();
    this.#settling.set(tenantId, timer);
  }

  /** The tenant's classifier as this instance holds it now, without training one: undefined when none was trained. */
  held(tenantId: string): EntryClassifier | null | undefined {
    return this.#models.get(tenantId)?.model;
  }

  /**
   * The tenant's classifier if it knows every FAQ unit among `unitIds` (the candidates of one question), else null,
   * starting the training that will: a question does not wait for one.
   */
  model(tenantId: string, unitIds: string[]): EntryClassifier | null {
    const known = this.#models.get(tenantId);
    if (known && unitIds.every((id) => known.ids.has(id))) return known.model;
    if (!this.#training.has(tenantId)) this.#refresh(tenantId).catch(() => undefined);
    return null;
  }

  /**
   * The tenant's classifier for its FAQ units as they are now, waiting for its training: for evaluations, whose runs
   * are compared. Null without one (too few or too many entries); a failed training is logged, and gives null too.
   */
  async ready(tenantId: string): Promise<EntryClassifier | null> {
    try {
      return (await this.#refresh(tenantId)).model;
    } catch {
      return null;
    }
  }

  /** Reads the tenant's FAQ units after any refresh under way (it may have read them before a change) and retrains if they differ. */
  #refresh(tenantId: string): Promise<TenantEntries> {
    const queued = this.#queued.get(tenantId);
    if (queued) return queued;
    const before = this.#training.get(tenantId) ?? Promise.resolve(null);
    const next: Promise<TenantEntries> = before
      .catch(() => null)
      .then(() => {
        this.#queued.delete(tenantId);
        this.#training.set(tenantId, next);
        return this.#load(tenantId);
      })
      .then((entries) => {
        const before = this.#models.get(tenantId);
        this.#models.set(tenantId, entries);
        if ((before?.model ?? null) !== entries.model) this.deps.searches.changed(tenantId);
        return entries;
      })
      .finally(() => {
        if (this.#training.get(tenantId) === next) this.#training.delete(tenantId);
      });
    next.catch((err: unknown) => {
      // Stopping closes the trainer and the database under a training: not a failure to report.
      if (!this.#stopped) this.deps.logger.warn({ err, tenantId }, "training the tenant's FAQ entry classifier failed");
    });
    if (this.#training.has(tenantId)) this.#queued.set(tenantId, next);
    else this.#training.set(tenantId, next);
    return next;
  }

  async #load(tenantId: string): Promise<TenantEntries> {
    const units = await faqUnits(this.deps.db, tenantId);
    const ids = new Set(units.map((u) => u.id));
    const known = this.#models.get(tenantId);
    if (known && known.ids.size === ids.size && [...ids].every((id) => known.ids.has(id))) return known;
    const cost = units.reduce((n, u) => n + u.texts.length, 0) * units.length;
    const model = units.length >= minEntries && cost <= maxTrainingCost ? await this.trainer.trainEntries(units) : null;
    if (cost > maxTrainingCost) {
      this.deps.logger.info({ tenantId, entries: units.length }, "the FAQ is too large for the entry classifier");
    }
    return { ids, model };
  }
}

/** The tenant's chunks that are FAQ units (src/knowledge/faq.ts), as passageOf reads them, with their training texts. */
async function faqUnits(db: Database, tenantId: string): Promise<EntryTexts[]> {
  // A unit's question is the last part of its title and one of its first lines: only such chunks are read.
  const rows = await db.sql.query<{ id: string; title: string; content: string }>(
    `SELECT id, title, content FROM chunks
      WHERE tenant_id = $1 AND title IS NOT NULL
        AND strpos(content, btrim(regexp_replace(title, '^.* › ', ''))) > 0
      ORDER BY id`,
    [tenantId],
  );
  const units: EntryTexts[] = [];
  for (const row of rows) {
    const passage = passageOf({ ...row, sourceTitle: "", similarity: 0 });
    if (passage.question) units.push({ id: row.id, texts: entryTexts(passage.question, passage.body) });
  }
  return units;
}
