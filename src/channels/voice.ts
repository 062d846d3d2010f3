import type { Services } from "../services.js";
import type { ChannelAdapter, ChannelEvent, ConfiguredChannel, WebhookRequest } from "./adapter.js";
import { formatForChannel, speakable } from "./format.js";
import { formBody, phoneCustomer } from "./payload.js";
import { closeConversation, type RoutedEvent, replyWithin, type SynchronousEndpoint, startSession } from "./synchronous.js";
import { type TwilioCredentials, twilioCredentials, twilioRoutingKey, twiml, verifyTwilioRequest, xml } from "./twilio.js";
import { providerMessageKey } from "./webhook.js";

// Voice calls through Twilio (../shared/providers/twilio.md). Each step of a call is a webhook answered
// with TwiML: the greeting and a speech <Gather>; each gathered utterance goes through the pipeline
// within the request and its answer is spoken, followed by the next <Gather>, until the caller hangs up.
// A call is one conversation; the status callback closes it when the call ends.

export const voiceInboundPath = "/api/v1/voice/inbound";
export const voiceStatusPath = "/api/v1/voice/status";

// About 60 words: what a caller can follow without losing the thread (DESIGN §3).
const spokenWords = 60;
// A tenant's own disclosure line is said whole up to this length.
const disclosureWords = 60;

export const voice: ChannelAdapter<TwilioCredentials> = {
  type: "voice",
  credentials: twilioCredentials,
  secretFields: ["auth_token"],
  routingKeyOf: twilioRoutingKey,
  format: (text, settings) => formatForChannel(speakable(text, spokenWords), { plainText: false, maxChars: 1000 }, settings),
};

interface CallRequest {
  callSid: string;
  from: string;
  to: string;
  status: string;
  /** The step of the call this request answers, from the <Gather> action URL; absent on the call's first request. */
  turn: number | null;
  speech: string | null;
}

function callOf(req: WebhookRequest): CallRequest | null {
  const f = formBody(req);
  if (!f.CallSid || !f.From || !f.To) return null;
  const turn = Number(req.query.turn);
  return {
    callSid: f.CallSid,
    from: f.From,
    to: f.To,
    status: f.CallStatus ?? "",
    turn: Number.isInteger(turn) && turn > 0 ? turn : null,
    speech: f.SpeechResult?.trim() || null,
  };
}

/** `providerMessageId` keys a step of a call, `(CallSid, step)`: a retried step gets the same answer again. */
function eventOf(call: CallRequest, step: string, text: string | null, kind: string): ChannelEvent {
  return {
    type: "voice",
    routingKey: phoneCustomer(call.to).phone ?? call.to,
    providerMessageId: `${call.callSid}:${step}`,
    customer: phoneCustomer(call.from),
    text,
    kind,
  };
}

interface Speaker {
  name: string;
  language: string;
  speakingRate: number;
  greeting: string | null;
}

async function selectedVoice(services: Services, tenantId: string): Promise<Speaker | null> {
  return services.db.prisma.voice.findFirst({
    where: { tenantId, selected: true },
    select: { name: true, language: true, speakingRate: true, greeting: true },
  });
}

// Only Amazon Polly and Google voices read SSML: <Say> has no rate of its own, so the rate is a <prosody>.
const ssmlVoice = /^(Polly|Google)\./;

/** `<Say>` in the tenant's selected voice (Twilio's default voice when none is selected). */
function say(speaker: Speaker | null, text: string): string {
  if (!speaker) return `<Say>${xml(text)}</Say>`;
  const rate = Math.round(speaker.speakingRate * 100);
  const spoken = rate !== 100 && ssmlVoice.test(speaker.name) ? `<prosody rate="${rate}%">${xml(text)}</prosody>` : xml(text);
  return `<Say voice="${xml(speaker.name)}" language="${xml(speaker.language)}">${spoken}</Say>`;
}

/** The URL Twilio posts the next utterance to: this one, with the step it answers. */
function actionUrl(req: WebhookRequest, turn: number): string {
  const url = new URL(req.url);
  url.search = `?turn=${turn}`;
  return url.toString();
}

/**
 * Says `text` and listens. Silence falls through to the next verb: one more prompt, then goodbye, so that
 * a call nobody speaks on ends.
 */
function listen(speaker: Speaker | null, req: WebhookRequest, turn: number, text: string): string {
  const gather = (prompt: string) =>
    `<Gather input="speech" action="${xml(actionUrl(req, turn))}" method="POST" speechTimeout="auto" language="${xml(
      speaker?.language ?? "en-US",
    )}">${say(speaker, prompt)}</Gather>`;
  return twiml(`${gather(text)}${gather("Are you still there? Tell me how I can help.")}${say(speaker, "Goodbye.")}<Hangup/>`);
}

async function greetingOf(services: Services, channel: ConfiguredChannel, speaker: Speaker | null): Promise<string> {
  if (speaker?.greeting) return speaker.greeting;
  if (channel.settings.greeting) return channel.settings.greeting;
  const tenant = await services.db.prisma.tenant.findUnique({ where: { id: channel.tenantId }, select: { name: true } });
  return `Hello, you are speaking with the assistant of ${tenant?.name ?? "our bank"}. How can I help you today?`;
}

async function answerCall(services: Services, routed: RoutedEvent, req: WebhookRequest): Promise<string> {
  const { event, channel } = routed;
  const call = callOf(req)!;
  const speaker = await selectedVoice(services, channel.tenantId);
  if (call.turn === null) {
    await startSession(services, channel, event.customer.id, "a new call started");
    return listen(speaker, req, 1, await greetingOf(services, channel, speaker));
  }
  if (!call.speech) return listen(speaker, req, call.turn, "Sorry, I did not catch that. Could you say it again?");
  const reply = await replyWithin(services, routed);
  // The disclosure is said first, outside the answer's budget of words.
  const said = [reply.disclosure && speakable(reply.disclosure, disclosureWords), voice.format(reply.text, channel.settings)]
    .filter(Boolean)
    .join(" ");
  // With a human in charge the AI says no more on this call.
  if (reply.handedOver) return twiml(`${say(speaker, said)}<Hangup/>`);
  return listen(speaker, req, call.turn + 1, said);
}

export const voiceWebhook: SynchronousEndpoint = {
  types: ["voice"],
  parse(req) {
    const call = callOf(req);
    if (!call) return [];
    return [eventOf(call, String(call.turn ?? 0), call.speech, call.speech ? "text" : "call")];
  },
  verify: verifyTwilioRequest,
  contentType: "text/xml",
  // A number no tenant has: the call is ended rather than left ringing.
  unrouted: twiml("<Hangup/>"),
  answer: answerCall,
};

// The call is over: a call that never connected has no conversation, one that did is closed.
const finalStatuses = new Set(["completed", "failed", "busy", "no-answer", "canceled"]);

/** Closes the conversation of a call that ended; a repeated callback, `(CallSid, CallStatus)`, changes nothing more. */
async function callEnded(services: Services, { event, channel }: RoutedEvent, req: WebhookRequest): Promise<string> {
  const call = callOf(req)!;
  if (!finalStatuses.has(call.status)) return twiml();
  const ofThisCall = providerMessageKey(channel, { providerMessageId: `${call.callSid}:` });
  const conversation = await services.db.prisma.conversation.findFirst({
    where: {
      tenantId: channel.tenantId,
      channel: channel.type,
      customerId: event.customer.id,
      status: { not: "closed" },
      messages: { some: { providerMessageId: { startsWith: ofThisCall } } },
    },
    select: { id: true, tenantId: true, status: true },
  });
  if (conversation) await closeConversation(services, conversation, `call ${call.status}`);
  return twiml();
}

export const voiceStatusWebhook: SynchronousEndpoint = {
  types: ["voice"],
  parse(req) {
    const call = callOf(req);
    return call ? [eventOf(call, call.status, null, "call-status")] : [];
  },
  verify: verifyTwilioRequest,
  contentType: "text/xml",
  unrouted: twiml(),
  answer: callEnded,
};
