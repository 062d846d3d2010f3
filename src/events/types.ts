/**
 * The events a tenant's endpoints can subscribe to, with what each means (the README lists their data).
 */
export const eventCatalogue = {
  "conversation.created": "A customer's first message started a conversation",
  "conversation.escalated": "A conversation was handed to the humans (the router or an API call)",
  "conversation.assigned": "An agent was given a conversation (automatically, by hand, or by replying)",
  "conversation.resolved": "An agent resolved a conversation: the AI answers again",
  "message.received": "A customer message was stored",
  "message.sent": "A reply (the AI's or an agent's) reached the customer's channel",
  "message.failed": "A reply could not be delivered, after its retries",
  "knowledge.source_ready": "A knowledge source was indexed and is answered from",
  "knowledge.source_failed": "A knowledge source could not be fetched or indexed",
  "feedback.given": "A customer rated a reply or scored a resolved conversation",
  "webhook.endpoint_disabled": "One of the tenant's endpoints was disabled after its deliveries failed for a day",
} as const;

export type EventType = keyof typeof eventCatalogue;

export const eventTypes = Object.keys(eventCatalogue) as EventType[];

export function isEventType(value: string): value is EventType {
  return Object.hasOwn(eventCatalogue, value);
}
