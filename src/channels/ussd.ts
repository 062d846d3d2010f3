import { z } from "zod";
import { withDisclosure } from "../conversations/disclosure.js";
import { escalateConversation, handoffNotice } from "../conversations/escalate.js";
import { humanStatuses } from "../conversations/status.js";
import type { Prisma } from "../db/generated/prisma/client.js";
import { routeInbound } from "../pipeline/router.js";
import type { Services } from "../services.js";
import type { ChannelAdapter, ChannelEvent, ConfiguredChannel, WebhookRequest } from "./adapter.js";
import { atToken, verifyUrlToken } from "./africastalking.js";
import { cutAtBoundary, formatForChannel, gsmSafe, pageText } from "./format.js";
import { inboundMessage } from "./inbound-job.js";
import { formBody, phoneCustomer } from "./payload.js";
import { type RoutedEvent, replyWithin, type SynchronousEndpoint, startSession } from "./synchronous.js";
import { providerMessageKey } from "./webhook.js";

// USSD through Africa's Talking (../shared/providers/africastalking.md). Every hop of a session is a
// callback answered at once with the next screen: `CON …` waits for input, `END …` closes the session.
// `text` carries every input of the session so far joined with `*`.
//
// One conversation per session: the customer id is the phone number (E.164), and the session's
// navigation state (its id, the last screen, each hop's answer) is kept in the conversation's metadata
// under `ussd` once the session has a conversation, i.e. from its first question or agent request.
// Until then the screens (menu, question prompt) follow from `text` alone.

const credentials = z.object({
  service_code: z
    .string()
    .trim()
    .regex(/^\*\d+(\*\d+)*#$/, "the USSD code customers dial, e.g. *384*123#"),
  token: atToken,
});
type Credentials = z.infer<typeof credentials>;

// GSM USSD shows at most 182 characters a screen (the CON/END prefix is not shown).
const screenChars = 182;
// A long answer is paged, not cut: about six screens.
const maxAnswerChars = 1000;
const more = "98";
const back = "0";
const agentChoice = "Talk to an agent";
const menuOptions = `1 Ask a question\n2 ${agentChoice}`;
const pagedFooter = `${more} More\n${back} Menu`;
const lastFooter = `${back} Menu`;

export const ussd: ChannelAdapter<Credentials> = {
  type: "ussd",
  credentials,
  secretFields: ["token"],
  routingKeyOf: (c) => c.service_code,
  // Typography that GSM lacks would show as boxes on many handsets.
  format: (text, settings) => gsmSafe(formatForChannel(text, { plainText: true, maxChars: maxAnswerChars }, settings)),
};

type Screen =
  | { kind: "menu"; invalid?: boolean }
  | { kind: "prompt" }
  | { kind: "answer"; pages: string[]; page: number }
  | { kind: "end"; text: string };

/** What a customer's input leads to: a screen, a question for the AI, or a human. */
type Step = { show: Screen } | { ask: string } | { agent: true };

interface SessionState {
  sessionId: string;
  last: { text: string; screen: Screen };
  /** Each hop's answer by its `text`: a repeated callback gets the same screen again. */
  hops: Record<string, string>;
}

interface Hop {
  sessionId: string;
  serviceCode: string;
  phoneNumber: string;
  text: string;
}

function hopOf(req: WebhookRequest): Hop | null {
  const { sessionId, serviceCode, phoneNumber, text } = formBody(req);
  return sessionId && serviceCode && phoneNumber ? { sessionId, serviceCode, phoneNumber, text: text ?? "" } : null;
}

/** The hop as a channel event: `(sessionId, text)` is the hop's redelivery key. */
function eventOf(hop: Hop): ChannelEvent {
  return {
    type: "ussd",
    routingKey: hop.serviceCode,
    providerMessageId: `${hop.sessionId}:${hop.text}`,
    customer: phoneCustomer(hop.phoneNumber),
    text: hop.text,
    kind: "text",
  };
}

function navigate(screen: Screen, input: string): Step {
  const typed = input.trim();
  switch (screen.kind) {
    case "menu":
      if (typed === "1") return { show: { kind: "prompt" } };
      if (typed === "2") return { agent: true };
      return { show: { kind: "menu", invalid: true } };
    case "prompt":
      return typed ? { ask: typed } : { show: screen };
    case "answer":
      if (typed === more) return { show: { ...screen, page: Math.min(screen.page + 1, screen.pages.length - 1) } };
      if (typed === back) return { show: { kind: "menu" } };
      // Anything else on an answer is the customer's next question.
      return typed ? { ask: typed } : { show: screen };
    case "end":
      return { show: screen };
  }
}

/** Whether the screen takes the customer's own words: then the rest of `text` is one input, `*` included. */
function takesText(screen: Screen, input: string): boolean {
  return screen.kind === "prompt" || (screen.kind === "answer" && input !== more && input !== back);
}

/**
 * The step that `inputs` (`*`-joined, as AT sends them) lead to from a screen. A hop normally adds one
 * input; a customer may type `*` in a question, so a screen that takes text takes the whole rest.
 */
function replay(screen: Screen, inputs: string): Step {
  let step: Step = { show: screen };
  if (inputs === "") return step;
  const parts = inputs.split("*");
  for (const [i, input] of parts.entries()) {
    if (!("show" in step)) break;
    if (takesText(step.show, input.trim())) return navigate(step.show, parts.slice(i).join("*"));
    step = navigate(step.show, input);
  }
  return step;
}

async function sessionOf(services: Services, channel: ConfiguredChannel, customerId: string, sessionId: string) {
  const live = await services.db.prisma.conversation.findMany({
    where: { tenantId: channel.tenantId, channel: channel.type, customerId, status: { not: "closed" } },
    select: { id: true, metadata: true },
    orderBy: { updatedAt: "desc" },
    take: 5,
  });
  for (const conversation of live) {
    const state = (conversation.metadata as { ussd?: SessionState } | null)?.ussd;
    if (state?.sessionId === sessionId) return { conversationId: conversation.id, state };
  }
  return null;
}

async function remember(services: Services, conversationId: string, hop: Hop, screen: Screen, body: string): Promise<void> {
  await services.db.prisma.$transaction(async (tx) => {
    const { metadata } = await tx.conversation.findUniqueOrThrow({ where: { id: conversationId }, select: { metadata: true } });
    const current = (metadata ?? {}) as { ussd?: SessionState };
    const hops = current.ussd?.sessionId === hop.sessionId ? current.ussd.hops : {};
    const ussd: SessionState = {
      sessionId: hop.sessionId,
      last: { text: hop.text, screen },
      hops: { ...hops, [hop.text]: body },
    };
    await tx.conversation.update({
      where: { id: conversationId },
      data: { metadata: { ...current, ussd } as unknown as Prisma.InputJsonObject },
    });
  });
}

/** An answer's screens, each leaving room for the paging options. */
const pagesOf = (text: string, channel: ConfiguredChannel) =>
  pageText(ussd.format(text, channel.settings), screenChars - pagedFooter.length - 1);

/** Menu choice 2: the conversation goes to the humans at once, without asking the AI. */
async function handToAgent(services: Services, { event, channel }: RoutedEvent) {
  const msg = inboundMessage(channel, { ...event, text: agentChoice }, providerMessageKey(channel, event));
  const { conversation, customerMessage } = await routeInbound(services, msg);
  if (humanStatuses.has(conversation.status)) {
    return { conversationId: conversation.id, screen: { kind: "end", text: handoffNotice } as Screen };
  }
  const notice = await escalateConversation(services, conversation, "customer_request", { replyTo: customerMessage.id });
  // Out of business hours the session goes on: the AI still answers while the request waits.
  const screen: Screen = notice.queued
    ? { kind: "answer", pages: pagesOf(notice.text, channel), page: 0 }
    : { kind: "end", text: notice.text };
  return { conversationId: conversation.id, screen };
}

async function perform(
  services: Services,
  routed: RoutedEvent,
  step: Step,
  conversationId: string | undefined,
): Promise<{ screen: Screen; conversationId?: string }> {
  if ("show" in step) return { screen: step.show, conversationId };
  if ("agent" in step) return handToAgent(services, routed);
  const reply = await replyWithin(services, { ...routed, event: { ...routed.event, text: step.ask } });
  // A closing screen holds the hand-off notice alone: with the disclosure it would be cut (182 characters). An urgent
  // hand-off's notice is followed by the knowledge base's help ("While you wait: freeze the card…"), more than a screen
  // holds: paged as an answer is, and what the customer writes next goes to the team.
  const oneScreen = () => Array.from(ussd.format(reply.text, routed.channel.settings)).length <= screenChars;
  if (reply.handedOver && oneScreen()) return { screen: { kind: "end", text: reply.text }, conversationId: reply.conversationId };
  const pages = pagesOf(withDisclosure(reply.disclosure, reply.text), routed.channel);
  return { screen: { kind: "answer", pages, page: 0 }, conversationId: reply.conversationId };
}

/** A screen's text and its options, the text cut to leave the options room within one screen. */
function screenOf(text: string, options: string): string {
  const room = screenChars - (options ? options.length + 1 : 0);
  return [cutAtBoundary(gsmSafe(text), room, "..."), options].filter(Boolean).join("\n");
}

async function render(services: Services, channel: ConfiguredChannel, screen: Screen): Promise<string> {
  switch (screen.kind) {
    case "menu": {
      const tenant = await services.db.prisma.tenant.findUnique({ where: { id: channel.tenantId }, select: { name: true } });
      const greeting = channel.settings.greeting ?? `Welcome to ${tenant?.name ?? "our service"}.`;
      return `CON ${screenOf(screen.invalid ? `Please choose 1 or 2. ${greeting}` : greeting, menuOptions)}`;
    }
    case "prompt":
      return `CON ${screenOf("Type your question:", "")}`;
    case "answer": {
      const hasMore = screen.page < screen.pages.length - 1;
      return `CON ${screenOf(screen.pages[screen.page] ?? "", hasMore ? pagedFooter : lastFooter)}`;
    }
    case "end":
      return `END ${screenOf(screen.text, "")}`;
  }
}

async function answerUssd(services: Services, routed: RoutedEvent, req: WebhookRequest): Promise<string> {
  const { event, channel } = routed;
  const hop = hopOf(req)!;
  const session = await sessionOf(services, channel, event.customer.id, hop.sessionId);
  const repeated = session?.state.hops[hop.text];
  if (repeated !== undefined) return repeated;
  if (hop.text === "") await startSession(services, channel, event.customer.id, "a new USSD session started");
  // From the session's last screen; without one (or for a hop that does not follow it), from the menu.
  const last = session?.state.last;
  const step =
    last && hop.text.startsWith(`${last.text}*`)
      ? replay(last.screen, hop.text.slice(last.text.length + 1))
      : replay({ kind: "menu" }, hop.text);
  const { screen, conversationId } = await perform(services, routed, step, session?.conversationId);
  const body = await render(services, channel, screen);
  if (conversationId) await remember(services, conversationId, hop, screen, body);
  return body;
}

export const ussdWebhook: SynchronousEndpoint = {
  types: ["ussd"],
  parse(req) {
    const hop = hopOf(req);
    return hop ? [eventOf(hop)] : [];
  },
  // Routed by the service code, authenticated by the callback URL's token (AT signs nothing).
  verify: verifyUrlToken,
  contentType: "text/plain",
  unrouted: "END This service is not available.",
  answer: answerUssd,
};
