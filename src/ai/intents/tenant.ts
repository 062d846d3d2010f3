import type { Services } from "../../services.js";
import type { ModelTrainer } from "../trainer.js";
import type { IntentClassifier } from "./classifier.js";
import { defaultIntentClassifier, defaultIntents } from "./defaults.js";

export interface IntentMeta {
  agentType: string;
  urgent: boolean;
}

export interface TenantIntents {
  classifier: IntentClassifier;
  meta: Map<string, IntentMeta>;
  custom: boolean;
  /**
   * With intents of the tenant's own: the built-in intents that hand a customer to a human (a request for one, a
   * complaint, a lost card, fraud), still recognised by the built-in classifier unless the tenant defines an
   * intent of the same name. Empty while the built-in set applies, which has them already.
   */
  builtInEscalations: Map<string, IntentMeta>;
}

interface Cached extends TenantIntents {
  version: number;
}

/**
 * Each tenant's classifier, trained from its examples and cached per instance by the tenant's
 * intents version: a change anywhere bumps the version and every instance retrains.
 * Tenants without intents of their own use the built-in set; those with their own keep its escalating intents.
 * Training runs in a worker thread (src/ai/trainer.ts); customers are meanwhile answered with the
 * tenant's previous model, or the built-in one, so a retraining never holds a conversation up.
 */
export class TenantIntentModels {
  private readonly cache = new Map<string, Cached>();
  private readonly training = new Map<string, Promise<Cached>>();

  constructor(
    private readonly services: Pick<Services, "db" | "tenants" | "logger">,
    private readonly trainer: ModelTrainer,
  ) {}

  /** The model to answer with now: the current one, else the previous or built-in one while the current trains. */
  async forTenant(tenantId: string): Promise<TenantIntents> {
    const version = await this.versionOf(tenantId);
    const cached = this.cache.get(tenantId);
    if (cached?.version === version) return cached;
    this.trainVersion(tenantId, version).catch(() => undefined);
    return cached ?? builtInIntents(version);
  }

  /** The tenant's current model, waiting for its training: for a change of intents and for testing the classifier. */
  async current(tenantId: string): Promise<TenantIntents> {
    return this.trainVersion(tenantId, await this.versionOf(tenantId));
  }

  private async versionOf(tenantId: string): Promise<number> {
    return (await this.services.tenants.tenant(tenantId))?.intentsVersion ?? 0;
  }

  private async trainVersion(tenantId: string, version: number): Promise<Cached> {
    const cached = this.cache.get(tenantId);
    if (cached?.version === version) return cached;
    const key = `${tenantId}:${version}`;
    let pending = this.training.get(key);
    if (!pending) {
      pending = this.train(tenantId, version).finally(() => this.training.delete(key));
      pending.catch((err) => this.services.logger.warn({ err, tenantId }, "training the tenant's intent classifier failed"));
      this.training.set(key, pending);
    }
    const trained = await pending;
    if ((this.cache.get(tenantId)?.version ?? -1) < trained.version) this.cache.set(tenantId, trained);
    return trained;
  }

  private async train(tenantId: string, version: number): Promise<Cached> {
    const intents = await this.services.db.prisma.intent.findMany({
      where: { tenantId },
      include: { examples: { select: { text: true } } },
    });
    const examples = intents.flatMap((i) => i.examples.map((e) => ({ text: e.text, intent: i.name })));
    if (!examples.length) return builtInIntents(version);
    const own = new Set(intents.map((i) => i.name));
    return {
      version,
      custom: true,
      classifier: await this.trainer.train(examples),
      meta: new Map(intents.map((i) => [i.name, { agentType: i.agentType, urgent: i.urgent }])),
      builtInEscalations: new Map(
        defaultIntents
          .filter((i) => (i.agentType === "handoff" || i.urgent) && !own.has(i.name))
          .map((i) => [i.name, { agentType: i.agentType, urgent: i.urgent }]),
      ),
    };
  }
}

function builtInIntents(version: number): Cached {
  return {
    version,
    custom: false,
    classifier: defaultIntentClassifier(),
    meta: new Map(defaultIntents.map((i) => [i.name, { agentType: i.agentType, urgent: i.urgent }])),
    builtInEscalations: new Map(),
  };
}
