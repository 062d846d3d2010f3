import type { ChannelStyle } from "../ai/engine.js";

/** How a reply must look on each channel (DESIGN §3 "Limits"); adapters format further (issue: channels). */
const styles: Record<string, Omit<ChannelStyle, "channel">> = {
  chatapp: { maxTokens: 500, plainText: true, hint: "Chat app: short paragraphs, no markdown headings or tables." },
  sms: { maxTokens: 110, plainText: true, hint: "SMS: at most three short sentences, no formatting, no links unless essential." },
  ussd: { maxTokens: 120, plainText: true, hint: "USSD screen: very short plain text, no formatting." },
  voice: {
    maxTokens: 90,
    plainText: true,
    hint: "Spoken on a phone call: about 60 words, no lists, no URLs, numbers written as words.",
  },
  botmsg: { maxTokens: 500, plainText: true, hint: "Bot messaging app: short paragraphs." },
  messenger: { maxTokens: 400, plainText: true, hint: "Page messaging: short paragraphs, no markdown." },
  instagram: { maxTokens: 220, plainText: true, hint: "Photo-sharing DMs: brief, friendly, no markdown." },
  microblog: { maxTokens: 400, plainText: true, hint: "Social DMs: brief, no markdown." },
  teamchat: { maxTokens: 600, plainText: false, hint: "Team chat: simple markdown allowed." },
  widget: { maxTokens: 600, plainText: false, hint: "Web chat widget: simple markdown allowed." },
  api: { maxTokens: 800, plainText: false, hint: "API client: simple markdown allowed." },
};

export function styleFor(channel: string): ChannelStyle {
  return { channel, ...(styles[channel] ?? styles.api!) };
}
