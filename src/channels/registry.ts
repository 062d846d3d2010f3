import type { ChannelAdapter } from "./adapter.js";
import { botmsg } from "./botmsg.js";
import { chatapp } from "./chatapp.js";
import { microblog } from "./microblog.js";
import { sms } from "./sms.js";
import { instagram, messenger } from "./social.js";
import { teamchat } from "./teamchat.js";
import { ussd } from "./ussd.js";
import { voice } from "./voice.js";
import { widget } from "./widget.js";

// Adding a channel is adding its file and a line here.
// Adapters' own credential types widen to the generic record: their methods take what they validated.
const adapters = [widget, chatapp, messenger, instagram, sms, ussd, voice, botmsg, microblog, teamchat] as ChannelAdapter[];

const byType = new Map<string, ChannelAdapter>(adapters.map((a) => [a.type, a]));

/** The configurable channel types, in the order the dashboard lists them. */
export const channelTypes = adapters.map((a) => a.type);

export function findAdapter(type: string): ChannelAdapter | undefined {
  return byType.get(type);
}

export function adapterFor(type: string): ChannelAdapter {
  const adapter = byType.get(type);
  if (!adapter) throw new Error(`No adapter for channel type ${type}`);
  return adapter;
}

/** Whether replies on this channel leave through a provider's send API (else they are answered in the HTTP response). */
export function sendsThroughProvider(channel: string): boolean {
  return byType.get(channel)?.send !== undefined;
}
