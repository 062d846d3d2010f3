import type { Response } from "express";
import { z } from "zod";
import { AppError } from "../errors.js";
import { PermanentJobError } from "../jobs/queue.js";
import type { Services } from "../services.js";
import type {
  ChannelAdapter,
  ChannelEvent,
  ConfiguredChannel,
  OutboundMessage,
  WebhookEndpoint,
  WebhookRequest,
} from "./adapter.js";
import { askingPayload, clipped, pressedButton } from "./choices.js";
import { cutAtBoundary } from "./format.js";
import { asArray, asObject, asText, formBody, headerOf, isObject, jsonValue } from "./payload.js";
import { ProviderError, postJson } from "./provider-http.js";
import { hmac, safeEqual } from "./signatures.js";
import { enabledChannelsOf } from "./store.js";

// The team-chat channel (Slack Events API; ../shared/providers/slack.md). Each Slack thread is a
// conversation: its customer id is `<channel>:<thread ts>` and replies go into that thread.

const credentials = z.object({
  team_id: z.string().regex(/^[TE][A-Z0-9]{2,30}$/, "the workspace id, T…"),
  bot_token: z.string().regex(/^xoxb-[A-Za-z0-9-]{10,250}$/, "the app's bot token for this workspace, xoxb-…"),
  signing_secret: z.string().regex(/^[A-Za-z0-9_-]{16,100}$/, "the app's signing secret (Basic Information page)"),
});
type Credentials = z.infer<typeof credentials>;

/** Slack's own replay window: a signed request older (or newer) than this is refused. */
const replayWindowSeconds = 5 * 60;

/** Markdown as Slack's mrkdwn: `*bold*`, `_italic_`, `~strike~`, `<url|label>` links, `&<>` escaped. */
export function toMrkdwn(markdown: string): string {
  const links: string[] = [];
  // Links are set aside first: their URLs must keep their own characters.
  const withoutLinks = markdown.replace(/\[([^\]]+)\]\((https?:[^)\s]+)\)/g, (_m, label: string, url: string) => {
    links.push(`<${url}|${escapeMrkdwn(label)}>`);
    return `\uE000${links.length - 1}\uE000`;
  });
  return escapeMrkdwn(withoutLinks)
    .replace(/^(\s*)[-+*]\s+/gm, "$1• ")
    .replace(/(^|[^\w*])\*(?=\S)([^*\n]*?\S)\*(?!\w)/g, "$1_$2_")
    .replace(/(\*\*|__)(?=\S)([\s\S]*?\S)\1/g, "*$2*")
    .replace(/^\s{0,3}#{1,6}\s+(.+)$/gm, "*$1*")
    .replace(/~~(.+?)~~/g, "~$1~")
    .replace(/\uE000(\d+)\uE000/g, (_m, i: string) => links[Number(i)]!)
    .trim();
}

function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** A customer's Slack text as plain text: mentions of the bot removed, links and entities resolved. */
function plainText(text: string, botUserId: string | null): string {
  return text
    .replace(/<@([A-Z0-9]+)(\|[^>]*)?>/g, (_m, id: string) => (id === botUserId ? "" : `@${id}`))
    .replace(/<(https?:[^|>]+)\|([^>]+)>/g, "$2 ($1)")
    .replace(/<(https?:[^>]+)>/g, "$1")
    .replace(/<[#!]([^|>]+)(\|([^>]*))?>/g, (_m, id: string, _l, label?: string) => label || id)
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&")
    .trim();
}

// Errors that waiting cannot fix: the token, the app's installation or the channel is gone.
const retryableErrors = new Set(["internal_error", "fatal_error", "service_unavailable", "request_timeout", "ratelimited"]);

export const teamchat: ChannelAdapter<Credentials> = {
  type: "teamchat",
  credentials,
  secretFields: ["bot_token", "signing_secret"],
  routingKeyOf: (c) => c.team_id,
  // Slack truncates at 40,000 characters but advises 4,000 for a readable message.
  format: (text, settings) => cutAtBoundary(toMrkdwn(text), Math.min(4000, settings.maxReplyChars ?? 4000)),
  async send({ channel, config, signal }, message) {
    const [slackChannel, threadTs] = message.to.split(":");
    const answer = await postJson<{ ok?: boolean; error?: string; ts?: string }>(
      `${config.SLACK_API_URL.replace(/\/$/, "")}/chat.postMessage`,
      { channel: slackChannel, text: message.text, thread_ts: threadTs, unfurl_links: false, ...blocksOf(message) },
      { authorization: `Bearer ${channel.credentials.bot_token}`, "content-type": "application/json; charset=utf-8" },
      signal,
    );
    // Slack answers 200 even when it refuses: `ok` says what happened.
    if (answer.ok !== true) {
      const error = answer.error ?? "unknown_error";
      if (retryableErrors.has(error)) throw new ProviderError(`Slack answered ${error}`, 200);
      throw new PermanentJobError(`Slack refused the message: ${error}`);
    }
    return { providerMessageId: answer.ts ?? null };
  },
};

// A section's text holds 3,000 characters; a button's label 75, its value 2,000.
const blockLimits = { section: 3000, label: 75, value: 2000 };

/**
 * A decline that lists questions, with a button for each under it (the text stays the notification's, and numbers
 * them for a reader who types). A press comes to the interactivity URL (this webhook) as a `block_actions` payload.
 */
function blocksOf(message: OutboundMessage) {
  if (!message.choices?.length || message.text.length > blockLimits.section) return {};
  return {
    blocks: [
      { type: "section", text: { type: "mrkdwn", text: message.text } },
      {
        type: "actions",
        elements: message.choices.map((question, i) => ({
          type: "button",
          action_id: `ask_${i + 1}`,
          text: { type: "plain_text", text: clipped(question, blockLimits.label) },
          value: askingPayload(question, blockLimits.value),
        })),
      },
    ],
  };
}

/** Slack's v0 signature over `v0:<timestamp>:<raw body>`, within the replay window. */
export function verifySlackSignature(req: WebhookRequest, signingSecret: string, now = Date.now()): boolean {
  const timestamp = headerOf(req, "x-slack-request-timestamp");
  const signature = headerOf(req, "x-slack-signature");
  if (!timestamp || !/^\d{1,12}$/.test(timestamp) || !signature) return false;
  if (Math.abs(now / 1000 - Number(timestamp)) > replayWindowSeconds) return false;
  const base = Buffer.concat([Buffer.from(`v0:${timestamp}:`), req.rawBody]);
  return safeEqual(signature, `v0=${hmac("sha256", signingSecret, base, "hex")}`);
}

const verify = (req: WebhookRequest, channel: ConfiguredChannel) =>
  Boolean(channel.credentials.signing_secret) && verifySlackSignature(req, channel.credentials.signing_secret!);

function jsonOrNull(req: WebhookRequest): Record<string, unknown> | null {
  const body = jsonValue(req);
  return isObject(body) ? body : null;
}

/**
 * A person's message to the bot: a direct message, a message in a channel the bot is in, or a
 * mention. Bot messages (our own replies among them), edits, deletions and joins are not.
 */
function parse(req: WebhookRequest): ChannelEvent[] {
  const interaction = interactionOf(req);
  if (interaction) return pressOf(interaction);
  const body = jsonOrNull(req);
  if (!body)
    throw new AppError("VALIDATION", "Request body is not a Slack event", [{ path: "body", message: "JSON object expected" }]);
  if (asText(body.type) !== "event_callback") return [];
  const teamId = asText(body.team_id);
  const event = asObject(body.event);
  const botUserId = asText(asObject(asArray(body.authorizations)[0]).user_id);
  const type = asText(event.type);
  const channel = asText(event.channel);
  const ts = asText(event.ts);
  const user = asText(event.user);
  if (!teamId || !channel || !ts || !user || (type !== "message" && type !== "app_mention")) return [];
  if (event.bot_id !== undefined || event.subtype !== undefined || user === botUserId) return [];
  const text = plainText(asText(event.text) ?? "", botUserId);
  const thread = asText(event.thread_ts) ?? ts;
  return [
    {
      type: "teamchat",
      routingKey: teamId,
      // A mention in a channel arrives twice (as `message` and as `app_mention`, with different
      // event ids): the message's own channel and timestamp identify it once.
      providerMessageId: `${channel}:${ts}`,
      customer: { id: `${channel}:${thread}`, name: user },
      text: text || null,
      kind: text ? "text" : asArray(event.files).length ? "file" : "empty",
    },
  ];
}

/** An interaction (a button pressed): form-encoded, its JSON in `payload`; null for anything else. */
function interactionOf(req: WebhookRequest): Record<string, unknown> | null {
  if (!headerOf(req, "content-type")?.startsWith("application/x-www-form-urlencoded")) return null;
  const payload = formBody(req).payload;
  if (!payload) return null;
  try {
    const parsed: unknown = JSON.parse(payload);
    return isObject(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

/**
 * A press of one of the buttons under a decline: the question it names, in the thread of the message that carries
 * it (its conversation). Other interactions carry no customer message.
 */
function pressOf(interaction: Record<string, unknown>): ChannelEvent[] {
  const action = asObject(asArray(interaction.actions)[0]);
  const container = asObject(interaction.container);
  const teamId = asText(asObject(interaction.team).id);
  const channel = asText(asObject(interaction.channel).id) ?? asText(container.channel_id);
  const thread = asText(asObject(interaction.message).thread_ts) ?? asText(container.thread_ts) ?? asText(container.message_ts);
  const pressedAt = asText(action.action_ts);
  const { text, choice } = pressedButton(asText(action.value), asText(asObject(action.text).text));
  if (asText(interaction.type) !== "block_actions" || !teamId || !channel || !thread || !pressedAt || !text) return [];
  return [
    {
      type: "teamchat",
      routingKey: teamId,
      providerMessageId: `${channel}:${pressedAt}`,
      customer: { id: `${channel}:${thread}`, name: asText(asObject(interaction.user).id) },
      text,
      kind: "text",
      ...(choice && { choice }),
    },
  ];
}

export const teamchatWebhook: WebhookEndpoint = { types: ["teamchat"], parse, verify };

/**
 * Slack's checks that name no workspace: `ssl_check` (unsigned, answered 200) and the signed
 * `url_verification`, answered with its challenge when it is signed by a configured app's secret.
 * Returns false for event deliveries, which the webhook path handles.
 */
export async function answerSlackHandshake(services: Services, req: WebhookRequest, res: Response): Promise<boolean> {
  if (formBody(req).ssl_check === "1") {
    res.status(200).end();
    return true;
  }
  const body = jsonOrNull(req);
  if (asText(body?.type) !== "url_verification") return false;
  const channels = await enabledChannelsOf(services, "teamchat");
  if (!channels.some((c) => verify(req, c))) throw new AppError("AUTH_INVALID", "Invalid Slack signature");
  res.status(200).json({ challenge: asText(body?.challenge) ?? "" });
  return true;
}
