import type { AnswerInput } from "../ai/engine.js";
import { redactPII } from "../ai/redact.js";
import { notFound } from "../errors.js";
import type { Services } from "../services.js";
import type { Retrieved } from "./retriever.js";
import { styleFor } from "./styles.js";

/** What of the tenant's settings shapes its AI's answers. */
export interface AnswerSettings {
  tenantName: string;
  persona: string | null;
  /** Mask the customer's PII before it leaves for a model server (on unless the tenant turns it off). */
  redact: boolean;
  /** Consecutive answers the AI could not ground before a human takes over (DESIGN §3). */
  lowConfidenceLimit: number;
}

const defaultLowConfidenceLimit = 3;

export async function answerSettings(services: Services, tenantId: string): Promise<AnswerSettings> {
  const tenant = await services.tenants.tenant(tenantId);
  if (!tenant) throw notFound("Tenant");
  const settings = tenant.settings as { persona?: string; piiRedaction?: boolean; lowConfidenceEscalateAfter?: number };
  return {
    tenantName: tenant.name,
    persona: settings.persona ?? null,
    redact: settings.piiRedaction !== false,
    lowConfidenceLimit: settings.lowConfidenceEscalateAfter ?? defaultLowConfidenceLimit,
  };
}

/** The text retrieval searches with: the query is embedded by the embedder, a model server too when one is configured. */
export const searchTextOf = (settings: AnswerSettings, text: string) => (settings.redact ? redactPII(text).text : text);

/** The engine's input for a customer's message on a channel, with what retrieval found for it. */
export function answerInput(
  settings: AnswerSettings,
  message: { channel: string; text: string },
  retrieved: Retrieved,
  options: { signal?: AbortSignal; offerChoices?: boolean } = {},
): AnswerInput {
  return {
    tenantName: settings.tenantName,
    persona: settings.persona,
    style: styleFor(message.channel),
    message: message.text,
    history: retrieved.history,
    context: retrieved.context,
    redact: settings.redact,
    signal: options.signal,
    offerChoices: options.offerChoices,
    ...(retrieved.followUp ? { followUp: retrieved.followUp } : {}),
  };
}
