import type { Prisma } from "../db/generated/prisma/client.js";
import { newId } from "../db/ids.js";
import type { Services } from "../services.js";

// The AI disclosure (EU AI Act Art. 50: people must be told that they interact with an AI). Every conversation's
// first reply tells it once, on every channel. It is stored in the transcript as a message of its own (role
// `system`, metadata `kind: "disclosure"`: not one of the AI's answers, nor part of its history) and reaches the
// customer:
//   - API callers (/api/chat, GraphQL chat): prefixed to the first reply's `response` (and streamed first);
//   - the widget: as a message of its own, shown before the visitor's first message (init's `config.disclosure`);
//   - USSD and voice: prefixed to the first answer's screen or speech;
//   - channels that send through a provider: prefixed to the first message the customer is sent, so that nothing
//     reaches them before it, whatever order the send jobs run in (see `outboundText`).

export const disclosureKind = "disclosure";

/** What a tenant chose: a custom line or the default one, and whether it is on (off only when set so explicitly). */
export interface DisclosureSettings {
  aiDisclosure?: string;
  aiDisclosureEnabled?: boolean;
  assistantName?: string;
}

/** The default line, in the words the channel is used with (a caller speaks, a texter chats). */
export function defaultDisclosure(tenantName: string, settings: DisclosureSettings, channel: string): string {
  const name = settings.assistantName ?? `${tenantName}'s virtual assistant`;
  const verb = channel === "voice" ? "speaking" : "chatting";
  return `You are ${verb} with ${name}, an AI and not a person. You can ask for a person at any time.`;
}

/** The line a conversation on `channel` starts with, or null when the tenant turned disclosure off. */
export function disclosureFor(tenant: { name: string; settings: Prisma.JsonValue }, channel: string): string | null {
  const settings = (tenant.settings ?? {}) as DisclosureSettings;
  if (settings.aiDisclosureEnabled === false) return null;
  return settings.aiDisclosure ?? defaultDisclosure(tenant.name, settings, channel);
}

/** The line as a reply carries it at its head. */
export const withDisclosure = (disclosure: string | null, text: string) => (disclosure ? `${disclosure}\n\n${text}` : text);

/**
 * Stores the disclosure in a conversation that has none yet, and returns its line for the reply to carry; null
 * when the conversation was told before (or the tenant turned it off). The conversation's `disclosed_at` is set
 * from null in the same transaction: of two runs answering a new conversation's first messages at once, one tells.
 */
export async function discloseAtStart(
  services: Services,
  conversation: { id: string; tenantId: string; channel: string; disclosedAt: Date | null },
): Promise<string | null> {
  if (conversation.disclosedAt) return null;
  const prisma = services.db.prisma;
  const tenant = await services.tenants.tenant(conversation.tenantId);
  const text = tenant && disclosureFor(tenant, conversation.channel);
  if (!text) return null;
  const id = newId("msg");
  const metadata = { kind: disclosureKind, intent: "ai_disclosure", agentType: disclosureKind, confidence: 1, tokensUsed: 0 };
  // The claim and the message in one statement: of two runs at once, the second's UPDATE finds disclosed_at set.
  const told =
    (await prisma.$executeRaw`
      WITH claimed AS (
        UPDATE conversations SET disclosed_at = now(), message_count = message_count + 1
         WHERE id = ${conversation.id} AND disclosed_at IS NULL
        RETURNING id)
      INSERT INTO messages (id, tenant_id, conversation_id, role, content, metadata, created_at)
      SELECT ${id}, ${conversation.tenantId}, id, 'system', ${text}, ${JSON.stringify(metadata)}::jsonb, ${new Date()}
        FROM claimed`) === 1;
  if (!told) return null;
  conversation.disclosedAt = new Date();
  // Live listeners (the widget's feed) show it; no send job: it travels at the head of the first message sent.
  services.realtime.pubsub.publish("conversation:message", conversation.id, {
    tenantId: conversation.tenantId,
    conversationId: conversation.id,
    messageId: id,
    role: "system",
  });
  return text;
}

/**
 * The text a provider channel sends for a stored message: an AI message that is the first of its conversation to
 * leave carries the disclosure at its head. The disclosure message records which message carried it (`sentWith`);
 * a retried send of that message carries it again, any other message never.
 */
export async function outboundText(
  services: Services,
  message: { id: string; role: string; conversationId: string; content: string },
): Promise<string> {
  if (message.role !== "assistant") return message.content;
  const [disclosure] = await services.db.prisma.$queryRaw<Array<{ content: string }>>`
    UPDATE messages SET metadata = metadata || jsonb_build_object('sentWith', ${message.id}::text)
     WHERE conversation_id = ${message.conversationId} AND metadata->>'kind' = ${disclosureKind}
       AND coalesce(metadata->>'sentWith', ${message.id}) = ${message.id}
    RETURNING content`;
  return withDisclosure(disclosure?.content ?? null, message.content);
}
