import type { AnswerSource } from "../ai/engine.js";
import { handoffNotice } from "../conversations/escalate.js";
import type { Services } from "../services.js";
import { answerInput, answerSettings, searchTextOf } from "./answer-settings.js";
import { retrieveKnowledge } from "./retriever.js";
import { classifyIntent, decideByIntent } from "./router.js";
import { selfHelp } from "./self-help.js";

export interface PreviewReply {
  reply: string;
  grounded: boolean;
  intent: string;
  confidence: number;
  /** The message would be handed to a human. */
  handoff: boolean;
  sources: AnswerSource[];
  /** The FAQ questions a decline lists (src/ai/local.ts): their words are not the answer's. */
  suggestions: string[];
}

/**
 * What the pipeline would answer to a customer's first message, by the same stages as handleInbound
 * (intent, routing, retrieval, the engine in the channel's style), without storing a conversation or a
 * message: an evaluation replays a tenant's test questions through it.
 */
export async function previewReply(
  services: Services,
  question: { tenantId: string; channel: string; text: string },
): Promise<PreviewReply> {
  const intent = await classifyIntent(services, question.tenantId, question.text);
  const classified = { intent: intent.intent, confidence: intent.confidence };
  const decision = decideByIntent(intent);
  const settings = await answerSettings(services, question.tenantId);
  const context = async () => retrieveKnowledge(services, question.tenantId, searchTextOf(settings, question.text));
  if (decision.kind === "escalate") {
    const help =
      decision.reason === "urgent_intent"
        ? await selfHelp(services, answerInput(settings, question, { context: await context(), history: [] }))
        : null;
    return {
      ...classified,
      reply: help ? `${handoffNotice}\n\n${help.text}` : handoffNotice,
      grounded: help !== null,
      handoff: true,
      sources: help?.sources ?? [],
      suggestions: [],
    };
  }
  // A first message starts the streak of ungrounded answers at one: a limit of one hands it over at once, and such a
  // decline lists no questions, as in a conversation.
  const handsOver = settings.lowConfidenceLimit <= 1;
  const answer = await services.engine.answer(
    answerInput(settings, question, { context: await context(), history: [] }, { offerChoices: !handsOver }),
  );
  const handoff = !answer.grounded && handsOver;
  return {
    ...classified,
    reply: handoff ? `${answer.text}\n\n${handoffNotice}` : answer.text,
    grounded: answer.grounded,
    handoff,
    sources: answer.sources,
    suggestions: answer.suggestions ?? [],
  };
}
