import type { Channel, ConversationStatus } from "../../generated";

export const channels: Channel[] = [
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
];

export const conversationStatuses: ConversationStatus[] = ["open", "escalated", "assigned", "resolved", "closed"];

export const statusTone = (status: string) =>
  ({ escalated: "danger", assigned: "warn", resolved: "ok", closed: "neutral", open: "info" })[status] ?? "neutral";

/** How the team names a customer: their name, else their phone, else the channel's id for them. */
export const customerLabel = (c: { customerName: string | null; customerPhone: string | null; customerId: string | null }) =>
  c.customerName ?? c.customerPhone ?? c.customerId ?? "Anonymous visitor";
