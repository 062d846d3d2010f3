import { z } from "zod";
import type { ChannelAdapter, ChannelEvent, ChannelSettings, ChannelType, WebhookEndpoint } from "./adapter.js";
import { askingPayload, clipped, pressedButton } from "./choices.js";
import { fitBytes, formatForChannel } from "./format.js";
import { graphUrl, metaWebhookCredentials, verifyMetaRequest } from "./meta.js";
import { asArray, asObject, asText, jsonBody } from "./payload.js";
import { postJson } from "./provider-http.js";

// Page messaging (Messenger) and photo-sharing DMs (Instagram): one Meta webhook, told apart by
// `object` (../shared/providers/messenger-instagram.md). Both reply through the Send API.

const products = { page: "messenger", instagram: "instagram" } as const satisfies Record<string, ChannelType>;

// Quick replies: at most 13, a title of 20 characters, a payload of 1,000.
const quickReplyLimits = { count: 13, title: 20, payload: 1000 };

/** The questions a decline lists, as quick replies under it: a tap sends the label and the question in its payload. */
function quickReplies(choices: string[] | undefined) {
  if (!choices?.length) return {};
  return {
    quick_replies: choices.slice(0, quickReplyLimits.count).map((question, i) => ({
      content_type: "text",
      title: clipped(`${i + 1}. ${question}`, quickReplyLimits.title),
      payload: askingPayload(question, quickReplyLimits.payload),
    })),
  };
}

/** A Messenger-platform channel: the account id that routes it, and how its replies must look. */
function messagingAdapter(
  type: "messenger" | "instagram",
  idField: string,
  idDescription: string,
  format: (text: string, settings: ChannelSettings) => string,
) {
  const shape: Record<string, z.ZodString> = {
    [idField]: z.string().regex(/^\d{5,30}$/, idDescription),
    access_token: z.string().min(10).max(1000),
    ...metaWebhookCredentials,
  };
  const credentials = z.object(shape);
  const adapter: ChannelAdapter<Record<string, string>> = {
    type,
    credentials,
    secretFields: ["access_token", "verify_token", "app_secret"],
    routingKeyOf: (c) => c[idField]!,
    webhookTokenOf: (c) => c.verify_token ?? null,
    format,
    async send({ channel, config, signal }, message) {
      const answer = await postJson<{ message_id?: string }>(
        graphUrl({ config }, "me/messages"),
        {
          recipient: { id: message.to },
          messaging_type: "RESPONSE",
          message: { text: message.text, ...quickReplies(message.choices) },
          access_token: channel.credentials.access_token,
        },
        {},
        signal,
      );
      return { providerMessageId: answer.message_id ?? null };
    },
  };
  return adapter;
}

export const messenger = messagingAdapter("messenger", "page_id", "the Facebook Page's numeric id", (text, settings) =>
  formatForChannel(text, { plainText: true, maxChars: 2000 }, settings),
);

// Instagram counts its 1,000-character limit in UTF-8 bytes.
export const instagram = messagingAdapter(
  "instagram",
  "ig_account_id",
  "the Instagram professional account's numeric id",
  (text, settings) => fitBytes(formatForChannel(text, { plainText: true, maxChars: 1000 }, settings), 1000),
);

/** The customer input of one `messaging[]` item: a message that is not an echo of our own, or a button tap. */
function eventOf(type: ChannelType, routingKey: string, item: Record<string, unknown>): ChannelEvent | null {
  const sender = asText(asObject(item.sender).id);
  const message = asObject(item.message);
  const postback = asObject(item.postback);
  if (!sender || sender === routingKey || message.is_echo === true) return null;
  const id = asText(message.mid) ?? asText(postback.mid);
  if (!id) return null;
  const press = pressedButton(asText(asObject(message.quick_reply).payload), null);
  const text = press.text ?? asText(message.text) ?? asText(postback.title);
  const attachment = asText(asObject(asArray(message.attachments)[0]).type);
  return {
    type,
    routingKey,
    providerMessageId: id,
    customer: { id: sender },
    text,
    kind: text === null ? (attachment ?? "unknown") : "text",
    ...(press.choice && { choice: true }),
  };
}

export const socialWebhook: WebhookEndpoint = {
  types: ["messenger", "instagram"],
  parse(req) {
    const body = jsonBody(req);
    const type = products[asText(body.object) as keyof typeof products];
    if (!type) return [];
    const events: ChannelEvent[] = [];
    // `standby` items belong to another app that owns the thread (handover protocol): never answered.
    for (const entry of asArray(body.entry)) {
      const routingKey = asText(asObject(entry).id);
      if (!routingKey) continue;
      for (const item of asArray(asObject(entry).messaging)) {
        const event = eventOf(type, routingKey, asObject(item));
        if (event) events.push(event);
      }
    }
    return events;
  },
  verify: verifyMetaRequest,
  ack: { contentType: "text/plain", body: "EVENT_RECEIVED" },
};
