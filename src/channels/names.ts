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
