import type { AnswerSource, Turn } from "../ai/engine.js";
import { handoffNotice } from "../conversations/escalate.js";
import { waitingNotice } from "../conversations/waiting.js";
import type { Services } from "../services.js";
import { answerInput, answerSettings, searchTextOf } from "./answer-settings.js";
import { retrieveKnowledge, searchFollowUp } from "./retriever.js";
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

/** A customer's message to preview: on a channel, after the customer's earlier messages in the same conversation. */
export interface PreviewQuestion {
  tenantId: string;
  channel: string;
  text: string;
  earlier?: string[];
}

/**
 * What the pipeline would answer to a customer's message, by the same stages as handleInbound (intent, routing,
 * retrieval, the engine in the channel's style), without storing a conversation or a message: an evaluation replays a
 * tenant's test questions through it. Earlier messages are previewed first, in turn, and make the conversation the
 * question is asked in (a follow-up's context); one that hands over leaves the question with the team.
 */
export async function previewReply(services: Services, question: PreviewQuestion): Promise<PreviewReply> {
  const history: Turn[] = [];
  for (const text of question.earlier ?? []) {
    const before = await previewTurn(services, { ...question, text }, history);
    if (before.handoff) {
      const intent = await classifyIntent(services, question.tenantId, question.text);
      const waiting = { reply: waitingNotice(question.channel), grounded: false, handoff: true, sources: [], suggestions: [] };
      return { intent: intent.intent, confidence: intent.confidence, ...waiting };
    }
    history.push({ role: "customer", content: text }, { role: "assistant", content: before.reply });
  }
  return previewTurn(services, question, history);
}

async function previewTurn(services: Services, question: PreviewQuestion, history: Turn[]): Promise<PreviewReply> {
  const intent = await classifyIntent(services, question.tenantId, question.text);
  const classified = { intent: intent.intent, confidence: intent.confidence };
  const decision = decideByIntent(intent);
  const settings = await answerSettings(services, question.tenantId);
  const retrieved = async () => {
    const [context, followUp] = await Promise.all([
      retrieveKnowledge(services, question.tenantId, searchTextOf(settings, question.text)),
      searchFollowUp(services, question.tenantId, settings, question.text, history),
    ]);
    return { context, history, ...(followUp ? { followUp } : {}) };
  };
  if (decision.kind === "escalate") {
    const help =
      decision.reason === "urgent_intent" ? await selfHelp(services, answerInput(settings, question, await retrieved())) : null;
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
  // decline lists no questions, as in a conversation. The earlier messages' streak is not counted.
  const handsOver = settings.lowConfidenceLimit <= 1;
  const answer = await services.engine.answer(answerInput(settings, question, await retrieved(), { offerChoices: !handsOver }));
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
