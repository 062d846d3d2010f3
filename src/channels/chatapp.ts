import { z } from "zod";
import type { ChannelAdapter, ChannelEvent, OutboundMessage, WebhookEndpoint } from "./adapter.js";
import { askingPayload, clipped, pressedButton } from "./choices.js";
import { formatForChannel } from "./format.js";
import { graphUrl, metaWebhookCredentials, verifyMetaRequest } from "./meta.js";
import { asArray, asObject, asText, e164, jsonBody } from "./payload.js";
import { postJson } from "./provider-http.js";

// The chat-app business messaging channel (WhatsApp Cloud API; ../shared/providers/whatsapp.md).

const credentials = z.object({
  phone_number_id: z.string().regex(/^\d{5,30}$/, "the business phone number's numeric id"),
  access_token: z.string().min(10).max(1000),
  ...metaWebhookCredentials,
});
type Credentials = z.infer<typeof credentials>;

export const chatapp: ChannelAdapter<Credentials> = {
  type: "chatapp",
  credentials,
  secretFields: ["access_token", "verify_token", "app_secret"],
  routingKeyOf: (c) => c.phone_number_id,
  webhookTokenOf: (c) => c.verify_token,
  // The spec caps chat-app replies at 500 tokens; the provider at 4,096 characters.
  format: (text, settings) => formatForChannel(text, { plainText: true, maxChars: 4096, maxTokens: 500 }, settings),
  async send({ channel, config, signal }, message) {
    const answer = await postJson<{ messages?: Array<{ id?: string }> }>(
      graphUrl({ config }, `${channel.credentials.phone_number_id}/messages`),
      {
        messaging_product: "whatsapp",
        recipient_type: "individual",
        to: message.to,
        ...content(message),
      },
      { authorization: `Bearer ${channel.credentials.access_token}` },
      signal,
    );
    return { providerMessageId: answer.messages?.[0]?.id ?? null };
  },
};

// An interactive list holds a body of at most 1,024 characters and 10 rows; a row's id 200, title 24, description 72.
const listLimits = { body: 1024, rows: 10, id: 200, title: 24, description: 72 };

/**
 * A reply as WhatsApp shows it: text, or, for a decline that lists questions, a list message whose rows ask them (the
 * text still numbers them, for a customer who types). A body too long for a list goes as text alone.
 */
function content(message: OutboundMessage) {
  const choices = message.choices?.slice(0, listLimits.rows) ?? [];
  if (!choices.length || message.text.length > listLimits.body) {
    return { type: "text", text: { preview_url: false, body: message.text } };
  }
  const rows = choices.map((question, i) => {
    const title = clipped(`${i + 1}. ${question}`, listLimits.title);
    return {
      id: askingPayload(question, listLimits.id),
      title,
      ...(title.endsWith("…") ? { description: clipped(question, listLimits.description) } : {}),
    };
  });
  return {
    type: "interactive",
    interactive: { type: "list", body: { text: message.text }, action: { button: "Choose a question", sections: [{ rows }] } },
  };
}

/** A pressed reply button or chosen list row: the question of one of ours, else its label. */
function pressedReply(interactive: Record<string, unknown>) {
  const chosen = asObject(interactive.button_reply ?? interactive.list_reply);
  return pressedButton(asText(chosen.id), asText(chosen.title));
}

/** Customer messages of a WhatsApp webhook; status events (sent, delivered, read) are not messages. */
function parse(body: Record<string, unknown>): ChannelEvent[] {
  const events: ChannelEvent[] = [];
  for (const entry of asArray(body.entry)) {
    for (const change of asArray(asObject(entry).changes)) {
      const value = asObject(asObject(change).value);
      const routingKey = asText(asObject(value.metadata).phone_number_id);
      const names = new Map(
        asArray(value.contacts).map((c) => [asText(asObject(c).wa_id), asText(asObject(asObject(c).profile).name)]),
      );
      for (const item of asArray(value.messages)) {
        const m = asObject(item);
        const from = asText(m.from);
        const id = asText(m.id);
        if (!routingKey || !from || !id) continue;
        const type = asText(m.type) ?? "unknown";
        const press = type === "interactive" ? pressedReply(asObject(m.interactive)) : null;
        const text =
          type === "text"
            ? asText(asObject(m.text).body)
            : type === "button"
              ? asText(asObject(m.button).text)
              : (press?.text ?? null);
        events.push({
          type: "chatapp",
          routingKey,
          providerMessageId: id,
          customer: { id: from, phone: e164(from), name: names.get(from) ?? null },
          text,
          kind: text === null ? type : "text",
          ...(press?.choice && { choice: true }),
        });
      }
    }
  }
  return events;
}

export const chatappWebhook: WebhookEndpoint = {
  types: ["chatapp"],
  parse: (req) => parse(jsonBody(req)),
  verify: verifyMetaRequest,
};
