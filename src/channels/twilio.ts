import { z } from "zod";
import type { ConfiguredChannel, WebhookRequest } from "./adapter.js";
import { e164, headerOf } from "./payload.js";
import { hmac, safeEqual } from "./signatures.js";

// What Twilio's SMS and voice channels share (../shared/providers/twilio.md): the account that owns the
// number, the X-Twilio-Signature every webhook carries, and TwiML answers.

export const twilioCredentials = z.object({
  account_sid: z.string().regex(/^AC[0-9a-fA-F]{32}$/, "the account SID: AC and 32 hex digits"),
  auth_token: z.string().min(8).max(200),
  // Kept as E.164 however the tenant typed it: it is the `To` that routes, and the `From` of replies.
  phone_number: z.string().transform((v, ctx) => {
    const number = e164(v);
    if (!number) ctx.addIssue({ code: "custom", message: "the Twilio phone number in E.164, e.g. +15557654321" });
    return number ?? z.NEVER;
  }),
});
export type TwilioCredentials = z.infer<typeof twilioCredentials>;

/** Twilio numbers route by `To`. */
export const twilioRoutingKey = (c: { phone_number: string }) => c.phone_number;

/** The POST parameters in the order sent, repeated names kept (Twilio signs each value). */
export function formParams(req: WebhookRequest): Array<[string, string]> {
  return [...new URLSearchParams(req.rawBody.toString("utf8"))];
}

/**
 * `X-Twilio-Signature`: base64 HMAC-SHA1 keyed with the auth token over the full URL followed by every
 * POST parameter as name + value, sorted by name (repeated names by value).
 */
export function twilioSignature(authToken: string, url: string, params: Array<[string, string]>): string {
  const byName = (a: [string, string], b: [string, string]) =>
    a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0;
  const signed =
    url +
    [...params]
      .sort(byName)
      .map(([name, value]) => name + value)
      .join("");
  return hmac("sha1", authToken, signed, "base64");
}

/** Twilio is inconsistent about default ports in the URL it signs: both spellings are accepted, as twilio-node does. */
function urlSpellings(url: string): string[] {
  const match = /^(https?):\/\/([^/?#:]+)(:\d+)?(.*)$/i.exec(url);
  if (!match) return [url];
  const [, scheme, host, port, rest] = match;
  const defaultPort = scheme!.toLowerCase() === "https" ? ":443" : ":80";
  if (!port) return [url, `${scheme}://${host}${defaultPort}${rest}`];
  return port === defaultPort ? [url, `${scheme}://${host}${rest}`] : [url];
}

/**
 * Whether the request was signed with the channel's auth token. Routing by `To` happens first, on
 * unverified input; the signature covers `To` and `AccountSid`, so a forged one cannot pass.
 */
export function verifyTwilioRequest(req: WebhookRequest, channel: ConfiguredChannel): boolean {
  const signature = headerOf(req, "x-twilio-signature");
  const token = channel.credentials.auth_token;
  if (!signature || !token) return false;
  const params = req.method === "POST" ? formParams(req) : [];
  return urlSpellings(req.url).some((url) => safeEqual(signature, twilioSignature(token, url, params)));
}

const entities: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" };

/** Text or an attribute value inside TwiML. */
export const xml = (text: string) => text.replace(/[&<>"']/g, (c) => entities[c]!);

/** A TwiML document; `<Response/>` when there is nothing to do (an SMS answered later, a status callback). */
export function twiml(verbs = ""): string {
  return `<?xml version="1.0" encoding="UTF-8"?>${verbs ? `<Response>${verbs}</Response>` : "<Response/>"}`;
}
