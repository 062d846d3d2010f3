import type { Request, Response } from "express";
import { z } from "zod";
import { AppError } from "../errors.js";
import type { Services } from "../services.js";
import type { ChannelAdapter, ChannelEvent, ConfiguredChannel, WebhookEndpoint, WebhookRequest } from "./adapter.js";
import { claimsOf } from "./claims.js";
import { formatForChannel } from "./format.js";
import { asArray, asObject, asText, headerOf, jsonBody, singleQuery } from "./payload.js";
import { postJson } from "./provider-http.js";
import { hmac, safeEqual } from "./signatures.js";
import { channelById, enabledChannelsOf } from "./store.js";

// The short-post social channel's direct messages (X Account Activity API;
// ../shared/providers/x-account-activity.md). The X app's consumer secret signs both the CRC
// answer and every event; the subscribed account's id (`for_user_id`) routes events to a tenant.

const credentials = z.object({
  user_id: z.string().regex(/^\d{1,25}$/, "the numeric id of the X account whose direct messages are answered"),
  consumer_secret: z.string().min(20).max(200),
  access_token: z.string().min(20).max(2000),
});
type Credentials = z.infer<typeof credentials>;

export const microblog: ChannelAdapter<Credentials> = {
  type: "microblog",
  credentials,
  secretFields: ["consumer_secret", "access_token"],
  routingKeyOf: (c) => c.user_id,
  format: (text, settings) => formatForChannel(text, { plainText: true, maxChars: 10_000 }, settings),
  async send({ channel, config, signal }, message) {
    const answer = await postJson<{ data?: { dm_event_id?: string } }>(
      `${config.X_API_URL.replace(/\/$/, "")}/2/dm_conversations/with/${encodeURIComponent(message.to)}/messages`,
      { text: message.text },
      { authorization: `Bearer ${channel.credentials.access_token}` },
      signal,
    );
    return { providerMessageId: answer.data?.dm_event_id ?? null };
  },
};

/** `sha256=<base64 HMAC-SHA256(consumer secret, data)>`: X's form for both the CRC answer and event signatures. */
const xSignature = (secret: string, data: string | Buffer) => `sha256=${hmac("sha256", secret, data, "base64")}`;

/**
 * X's CRC tokens are short base64 or hex strings. Since the CRC answer and an event signature share one
 * form and one key, only tokens of that shape are signed: none of them is a JSON object, so no CRC answer
 * is ever a valid signature for an event body.
 */
const crcTokenShape = /^[A-Za-z0-9+/=_-]{1,256}$/;

/** An event body is a JSON object: its first non-blank byte is `{`, which no CRC token contains. */
const looksLikeEvent = (body: Buffer) => body.toString("utf8").trimStart().startsWith("{");

function verify(req: WebhookRequest, channel: ConfiguredChannel): boolean {
  const secret = channel.credentials.consumer_secret;
  return (
    Boolean(secret) &&
    looksLikeEvent(req.rawBody) &&
    safeEqual(headerOf(req, "x-twitter-webhooks-signature"), xSignature(secret!, req.rawBody))
  );
}

/**
 * Direct messages received by the subscribed account. The account's own messages (our replies
 * among them) arrive too and are dropped; tweets, likes, follows and typing indicators are not
 * conversations.
 */
function parse(req: WebhookRequest): ChannelEvent[] {
  const body = jsonBody(req);
  const account = asText(body.for_user_id);
  if (!account) return [];
  const users = asObject(body.users);
  const events: ChannelEvent[] = [];
  for (const item of asArray(body.direct_message_events)) {
    const event = asObject(item);
    const create = asObject(event.message_create);
    const id = asText(event.id);
    const sender = asText(create.sender_id);
    if (asText(event.type) !== "message_create" || !id || !sender || sender === account) continue;
    const data = asObject(create.message_data);
    const text = asText(data.text);
    const attachment = asText(asObject(asObject(data.attachment).media).type);
    events.push({
      type: "microblog",
      routingKey: account,
      providerMessageId: id,
      customer: { id: sender, name: asText(asObject(users[sender]).name) },
      text: text?.trim() ? text : null,
      kind: text?.trim() ? "text" : (attachment ?? "unknown"),
    });
  }
  return events;
}

export const microblogWebhook: WebhookEndpoint = { types: ["microblog"], parse, verify };

/** The channels whose app may answer for an account: its verified claim, or before any proof every claim. */
async function accountApps(services: Services, account: string): Promise<ConfiguredChannel[]> {
  const claims = await claimsOf(services, "microblog", account);
  const verified = claims.filter((c) => c.verified);
  return (verified.length ? verified : claims).map((c) => c.channel);
}

/** The channel a CRC URL's `?channel=<channel id>` names, when it is an enabled microblog channel. */
async function namedChannel(services: Services, id: string): Promise<ConfiguredChannel[]> {
  const channel = await channelById(services, id);
  return channel?.type === "microblog" && channel.enabled ? [channel] : [];
}

/**
 * X's challenge-response check (CRC): `crc_token` signed with the app's consumer secret. The GET
 * names no account, so the secret is the one every configured account shares (one X app serving
 * many accounts, X's own model); a tenant with an app of its own registers the URL with
 * `?account=<its user id>`, or `?channel=<its channel id>`, which no other tenant's claim on the
 * account can make ambiguous. Anything else is 403, so a stranger learns nothing; and only a token of
 * X's shape is signed, so that the answer is no signing oracle for event bodies.
 */
export async function answerMicroblogCrc(services: Services, req: Request, res: Response): Promise<void> {
  const q = singleQuery(req.query);
  const crcToken = q.crc_token;
  if (!crcToken || !crcTokenShape.test(crcToken)) {
    throw new AppError("FORBIDDEN", "Not a CRC request: crc_token is missing or not a token");
  }
  const candidates = q.channel
    ? await namedChannel(services, q.channel)
    : q.account
      ? await accountApps(services, q.account)
      : await enabledChannelsOf(services, "microblog");
  const secrets = new Set(candidates.map((c) => c.credentials.consumer_secret).filter((s): s is string => Boolean(s)));
  if (secrets.size !== 1) {
    throw new AppError(
      "FORBIDDEN",
      secrets.size
        ? "Several X apps are configured: register the webhook URL with ?account=<user id>"
        : "No microblog channel is configured for this request",
    );
  }
  const [secret] = secrets;
  res.status(200).json({ response_token: xSignature(secret!, crcToken) });
}
