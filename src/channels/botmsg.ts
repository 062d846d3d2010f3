import { z } from "zod";
import { PermanentJobError } from "../jobs/queue.js";
import type { ChannelAdapter, ChannelEvent, WebhookEndpoint, WebhookRequest } from "./adapter.js";
import { formatForChannel } from "./format.js";
import { asObject, asText, headerOf, jsonBody, jsonValue } from "./payload.js";
import { postJson } from "./provider-http.js";

// The bot-messaging channel (Telegram Bot API; ../shared/providers/telegram.md). Updates do not
// name the bot, so the tenant is found from the secret token the bot's webhook was registered with.

const credentials = z.object({
  bot_token: z.string().regex(/^\d{3,20}:[A-Za-z0-9_-]{20,100}$/, "the bot token @BotFather gave, <bot id>:<secret>"),
  secret_token: z
    .string()
    .regex(/^[A-Za-z0-9_-]{16,256}$/, "16 to 256 characters of A-Z, a-z, 0-9, _ and -, as setWebhook accepts"),
});
type Credentials = z.infer<typeof credentials>;

/** The bot's numeric id: the part of its token before the colon, public and stable. */
const botIdOf = (token: string) => token.slice(0, token.indexOf(":"));

interface TelegramAnswer {
  ok?: boolean;
  result?: { message_id?: number };
  description?: string;
}

export const botmsg: ChannelAdapter<Credentials> = {
  type: "botmsg",
  credentials,
  secretFields: ["bot_token", "secret_token"],
  routingKeyOf: (c) => botIdOf(c.bot_token),
  webhookTokenOf: (c) => c.secret_token,
  routedByToken: () => true,
  // Without parse_mode Telegram shows the text as sent: markdown marks would appear literally.
  format: (text, settings) => formatForChannel(text, { plainText: true, maxChars: 4096 }, settings),
  async send({ channel, config, signal }, message) {
    const answer = await postJson<TelegramAnswer>(
      `${config.TELEGRAM_API_URL.replace(/\/$/, "")}/bot${channel.credentials.bot_token}/sendMessage`,
      { chat_id: message.to, text: message.text, ...keyboardOf(message.choices) },
      {},
      signal,
    );
    if (answer.ok === false) throw new PermanentJobError(`Telegram refused the message: ${answer.description ?? "no reason"}`);
    return { providerMessageId: answer.result?.message_id === undefined ? null : String(answer.result.message_id) };
  },
};

/**
 * The questions a decline lists, as inline buttons under the reply: a press comes back as a callback query with the
 * question's number (`callback_data` holds at most 64 bytes, a question may be longer), read by `parse`.
 */
function keyboardOf(choices: string[] | undefined) {
  if (!choices?.length) return {};
  return { reply_markup: { inline_keyboard: choices.map((question, i) => [{ text: question, callback_data: String(i + 1) }]) } };
}

/**
 * What a pressed inline button says: its label, found in the message that carries it (so that a button of an older
 * reply asks its own question); the button's data where Telegram no longer includes that message.
 */
function pressedText(callback: Record<string, unknown>): { text: string | null; choice?: true } {
  const data = asText(callback.data);
  const keyboard = asObject(asObject(callback.message).reply_markup).inline_keyboard;
  const buttons = Array.isArray(keyboard) ? keyboard.flat().map(asObject) : [];
  // Our only inline buttons are a decline's questions: a label found is a question chosen. The bare number is read
  // against the latest list by the pipeline, as a typed one is.
  const label = asText(buttons.find((button) => asText(button.callback_data) === data)?.text);
  return label ? { text: label, choice: true } : { text: data };
}

/** What a message without text carries, from the first media field present. */
function mediaKind(message: Record<string, unknown>): string {
  const kinds = ["photo", "document", "voice", "audio", "video", "video_note", "sticker", "location", "contact", "poll"];
  return kinds.find((k) => message[k] !== undefined) ?? "unknown";
}

/**
 * The customer message of an Update: a new message (or its edit) from a person, or the label of an
 * inline button they pressed. Updates about the bot itself (blocked, added to a group) carry none.
 */
function parse(req: WebhookRequest): ChannelEvent[] {
  const update = jsonBody(req);
  const updateId = asText(update.update_id);
  const message = asObject(update.message ?? update.edited_message ?? update.business_message);
  const callback = asObject(update.callback_query);
  const from = asObject(message.from ?? callback.from);
  const chat = asObject(message.chat ?? asObject(callback.message).chat);
  const chatId = asText(chat.id);
  if (!updateId || !chatId || from.is_bot === true) return [];
  const typed = asText(message.text) ?? asText(message.caption);
  const press = typed === null ? pressedText(callback) : null;
  const text = typed ?? press?.text ?? null;
  const name = [asText(from.first_name), asText(from.last_name)].filter(Boolean).join(" ") || null;
  return [
    {
      type: "botmsg",
      providerMessageId: updateId,
      customer: { id: chatId, name },
      text,
      kind: text === null ? mediaKind(message) : "text",
      ...(press?.choice && { choice: true }),
    },
  ];
}

export const botmsgWebhook: WebhookEndpoint = {
  types: ["botmsg"],
  parse,
  tokenOf: (req) => headerOf(req, "x-telegram-bot-api-secret-token") || null,
  ack: answerPress,
};

/**
 * A pressed inline button is answered in the webhook's own answer (a Bot API call Telegram makes for the bot), which
 * ends the button's progress indicator without a request of ours; other updates get the plain acknowledgement.
 */
function answerPress(req: WebhookRequest) {
  // Parsed again only for such an update: the acknowledgement of every other one stays as cheap as before.
  const callback = req.rawBody.includes('"callback_query"') ? asObject(asObject(jsonValue(req)).callback_query) : {};
  const id = asText(callback.id);
  return {
    contentType: "application/json",
    body: id ? JSON.stringify({ method: "answerCallbackQuery", callback_query_id: id }) : '{"ok":true}',
  };
}
