/** The `channel` values of conversations (DESIGN §3); `api` is /api/chat without a channel. */
export const channelNames = [
  "widget",
  "chatapp",
  "sms",
  "ussd",
  "voice",
  "botmsg",
  "messenger",
  "instagram",
  "microblog",
  "teamchat",
  "api",
] as const;
export type ChannelName = (typeof channelNames)[number];

/**
 * Channels whose reply is the answer to the customer's own request: once the session or call is over, nothing
 * can be sent on them, so a person's answer comes another way (README, Hand-off).
 */
export const sessionChannels: ReadonlySet<string> = new Set<ChannelName>(["ussd", "voice"]);
