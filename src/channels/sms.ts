import { z } from "zod";
import { PermanentJobError } from "../jobs/queue.js";
import type { ChannelAdapter, ChannelEvent, ChannelSettings, SendContext, WebhookEndpoint, WebhookRequest } from "./adapter.js";
import { africasTalkingApi, atToken, urlToken } from "./africastalking.js";
import { fitSmsSegments, formatForChannel, gsmSafe } from "./format.js";
import { formBody, phoneCustomer } from "./payload.js";
import { ProviderError, postForm } from "./provider-http.js";
import { twilioCredentials, twilioRoutingKey, twiml, verifyTwilioRequest } from "./twilio.js";

// SMS through Twilio or Africa's Talking, chosen by the channel's settings.provider (default twilio).
// Both post to one path; replies leave through the provider's send API as jobs.

type Credentials = Record<string, string>;

interface SmsProvider {
  credentials: z.ZodType<Credentials>;
  routingKeyOf(c: Credentials): string;
  send(ctx: SendContext<Credentials>, message: { to: string; text: string }): Promise<{ providerMessageId?: string | null }>;
}

const twilio: SmsProvider = {
  credentials: twilioCredentials.extend({
    messaging_service_sid: z
      .string()
      .regex(/^MG[0-9a-fA-F]{32}$/, "a Messaging Service SID: MG and 32 hex digits")
      .optional(),
  }) as z.ZodType<Credentials>,
  routingKeyOf: (c) => twilioRoutingKey(c as { phone_number: string }),
  async send({ channel, config, signal }, message) {
    const { account_sid, auth_token, phone_number, messaging_service_sid } = channel.credentials;
    const answer = await postForm<{ sid?: string }>(
      `${config.TWILIO_API_URL.replace(/\/$/, "")}/2010-04-01/Accounts/${account_sid}/Messages.json`,
      {
        To: message.to,
        Body: message.text,
        // A Messaging Service picks its own sender from its pool.
        ...(messaging_service_sid ? { MessagingServiceSid: messaging_service_sid } : { From: phone_number! }),
      },
      { authorization: `Basic ${Buffer.from(`${account_sid}:${auth_token}`).toString("base64")}` },
      signal,
    );
    return { providerMessageId: answer.sid ?? null };
  },
};

interface AtSendAnswer {
  SMSMessageData?: { Message?: string; Recipients?: Array<{ statusCode?: number; status?: string; messageId?: string }> };
}

const africastalking: SmsProvider = {
  credentials: z.object({
    username: z.string().trim().min(1, "the AT app's username (sandbox for the sandbox)").max(100),
    api_key: z.string().min(8).max(200),
    shortcode: z.string().regex(/^\+?\d{3,15}$/, "the shortcode or number customers text, e.g. 22384"),
    token: atToken,
  }) as z.ZodType<Credentials>,
  routingKeyOf: (c) => c.shortcode!,
  async send({ channel, config, signal }, message) {
    const { username, api_key, shortcode } = channel.credentials;
    const answer = await postForm<AtSendAnswer>(
      `${africasTalkingApi(config, username!)}/version1/messaging`,
      { username: username!, to: message.to, message: message.text, from: shortcode! },
      { apiKey: api_key! },
      signal,
    );
    // AT answers 201 for a request it took, and says per recipient whether the message went.
    const recipient = answer.SMSMessageData?.Recipients?.[0];
    const problem = `Africa's Talking did not send: ${recipient?.status ?? answer.SMSMessageData?.Message ?? "no recipient"}`;
    const code = Number(recipient?.statusCode ?? 0);
    if (code >= 500) throw new ProviderError(problem, code);
    if (!recipient || code >= 400) throw new PermanentJobError(problem);
    return { providerMessageId: recipient.messageId ?? null };
  },
};

const providers: Record<string, SmsProvider> = { twilio, africastalking };

function providerOf(settings: ChannelSettings): SmsProvider | undefined {
  return providers[settings.provider ?? "twilio"];
}

const unknownProvider = z.record(z.string(), z.string()).refine(() => false, {
  message: `settings.provider must be one of ${Object.keys(providers).join(", ")}`,
});

// Segments are what the customer's carrier bills and what phones reassemble: three at most.
const maxSegments = 3;

export const sms: ChannelAdapter<Credentials> = {
  type: "sms",
  credentials: z.union([twilio.credentials, africastalking.credentials]),
  credentialsFor: (settings) => providerOf(settings)?.credentials ?? unknownProvider,
  secretFields: ["auth_token", "api_key", "token"],
  routingKeyOf: (c, settings) => providerOf(settings)!.routingKeyOf(c),
  // Only Africa's Talking channels have one: Twilio's requests are signed instead.
  webhookTokenOf: (c) => c.token ?? null,
  routedByToken: (settings) => settings.provider === "africastalking",
  format: (text, settings) =>
    fitSmsSegments(gsmSafe(formatForChannel(text, { plainText: true, maxChars: 1600 }, settings)), maxSegments),
  async send(ctx, message) {
    const provider = providerOf(ctx.channel.settings);
    if (!provider) throw new PermanentJobError(`Unknown SMS provider ${ctx.channel.settings.provider}`);
    return provider.send(ctx, message);
  },
};

/** What an MMS carries, from its first attachment's type. */
function mediaKind(contentType: string | undefined): string {
  const kind = contentType?.split("/")[0];
  return kind === "image" || kind === "video" || kind === "audio" ? kind : "file";
}

/** Twilio's inbound message: routed by `To`, the MessageSid is the redelivery key. */
function twilioEvents(req: WebhookRequest): ChannelEvent[] {
  const f = formBody(req);
  const id = f.MessageSid ?? f.SmsMessageSid;
  const to = f.To ? phoneCustomer(f.To).phone : null;
  if (!id || !to || !f.From) return [];
  const text = f.Body?.trim() ? f.Body : null;
  const kind = text !== null ? "text" : Number(f.NumMedia ?? 0) > 0 ? mediaKind(f.MediaContentType0) : "empty";
  return [{ type: "sms", routingKey: to, providerMessageId: id, customer: phoneCustomer(f.From), text, kind }];
}

/** Africa's Talking's inbound message: the URL token routes it, `id` is the redelivery key. */
function africasTalkingEvents(req: WebhookRequest): ChannelEvent[] {
  const f = formBody(req);
  if (!f.id || !f.from) return [];
  const text = f.text?.trim() ? f.text : null;
  return [
    { type: "sms", providerMessageId: f.id, customer: phoneCustomer(f.from), text, kind: text === null ? "empty" : "text" },
  ];
}

const twilioSmsWebhook: WebhookEndpoint = {
  types: ["sms"],
  parse: twilioEvents,
  verify: verifyTwilioRequest,
  // The reply follows through the REST API: the empty TwiML tells Twilio to send nothing now.
  ack: { contentType: "text/xml", body: twiml() },
};

const africasTalkingSmsWebhook: WebhookEndpoint = {
  types: ["sms"],
  parse: africasTalkingEvents,
  tokenOf: urlToken,
};

/**
 * The endpoint of the provider that sent this request to the shared SMS path. Twilio signs every
 * request; Africa's Talking signs nothing and calls the URL registered with the channel's token. A
 * request with neither signature nor token is therefore nobody's, and refused (401).
 */
export function smsWebhookFor(req: WebhookRequest): WebhookEndpoint {
  return req.headers["x-twilio-signature"] !== undefined ? twilioSmsWebhook : africasTalkingSmsWebhook;
}
