import type { Prisma } from "../db/generated/prisma/client.js";
import { newId } from "../db/ids.js";
import { AppError } from "../errors.js";

/** Conversation statuses (DESIGN §3). */
export const conversationStatuses = ["open", "escalated", "assigned", "resolved", "closed"] as const;
export type ConversationStatus = (typeof conversationStatuses)[number];

/** Statuses in which the AI answers nobody: a human has the conversation. */
export const humanStatuses: ReadonlySet<string> = new Set(["escalated", "assigned"]);
/** Statuses that end a conversation's life as the customer's current one. */
export const finishedStatuses: ReadonlySet<string> = new Set(["resolved", "closed"]);

// open → escalated (waiting for a human) → assigned (an agent owns it) → resolved; closed ends it for good.
// A customer writing again reopens a resolved conversation; an agent may hand one back to the AI.
const allowed: Record<ConversationStatus, readonly ConversationStatus[]> = {
  open: ["escalated", "assigned", "resolved", "closed"],
  escalated: ["assigned", "open", "resolved", "closed"],
  assigned: ["escalated", "open", "resolved", "closed"],
  resolved: ["open", "closed"],
  closed: [],
};

export function canTransition(from: string, to: ConversationStatus): boolean {
  return (allowed[from as ConversationStatus] ?? []).includes(to);
}

/** What a transition writes with: a plain or a tenant-scoped transaction (their generated types differ). */
interface Tx {
  conversation: {
    updateMany(args: { where: Prisma.ConversationWhereInput; data: { status: string } }): PromiseLike<{ count: number }>;
  };
  conversationEvent: { create(args: { data: Prisma.ConversationEventUncheckedCreateInput }): PromiseLike<unknown> };
}

/**
 * The one place a conversation changes status: checks the move, writes it, and records who made it
 * and why in the conversation's timeline. An invalid move is 422 VALIDATION.
 */
export async function transitionConversation(
  tx: Tx,
  conversation: { id: string; tenantId: string; status: string },
  to: ConversationStatus,
  change: { actor: string; reason?: string | null },
): Promise<void> {
  if (conversation.status === to) return;
  if (!canTransition(conversation.status, to)) {
    throw new AppError("VALIDATION", `A conversation cannot go from ${conversation.status} to ${to}`, [
      { path: "status", message: `invalid transition ${conversation.status} → ${to}` },
    ]);
  }
  const moved = await tx.conversation.updateMany({
    where: { id: conversation.id, tenantId: conversation.tenantId, status: conversation.status },
    data: { status: to },
  });
  // Someone else changed it first: their change stands and this one is refused rather than lost silently.
  if (moved.count !== 1) throw new AppError("VALIDATION", "The conversation changed meanwhile; reload and try again");
  await tx.conversationEvent.create({
    data: {
      id: newId("evt"),
      tenantId: conversation.tenantId,
      conversationId: conversation.id,
      type: "status",
      fromStatus: conversation.status,
      toStatus: to,
      actor: change.actor,
      reason: change.reason ?? null,
    },
  });
  conversation.status = to;
}
