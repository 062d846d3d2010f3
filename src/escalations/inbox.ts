import type { Services } from "../services.js";

/** What an agent's inbox is told: an escalation that appeared or changed, or a customer message for the humans. */
export type InboxEventType = "escalated" | "assigned" | "unassigned" | "resolved" | "updated" | "message";

export interface InboxPayload {
  type: InboxEventType;
  conversationId: string;
  escalationId?: string;
  messageId?: string;
}

/** Tells every instance's inbox subscribers of this tenant (through Redis when configured). */
export function publishInbox(services: Services, tenantId: string, payload: InboxPayload): void {
  services.realtime.pubsub.publish("inbox:escalation", tenantId, payload);
}

export interface ConversationActivity {
  conversationId: string;
  messageId: string;
}

/** Tells the dashboards of the tenant (every instance) that a message was stored in a conversation. */
export function publishActivity(services: Services, tenantId: string, activity: ConversationActivity): void {
  services.realtime.pubsub.publish("conversation:activity", tenantId, activity);
}
