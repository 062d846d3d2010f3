import type { Principal } from "../auth/principal.js";
import { sessionChannels } from "../channels/names.js";
import { humanStatuses } from "../conversations/status.js";
import { lockTenantFor } from "../db/advisory-lock.js";
import { newId } from "../db/ids.js";
import type { TenantDb } from "../db/tenant-scope.js";
import { AppError, notFound } from "../errors.js";
import { deliverReply, type ReplyToStore } from "../pipeline/deliver.js";
import type { Services } from "../services.js";
import { assertMayWork } from "./access.js";
import { assignEscalation } from "./assign.js";
import { publishInbox } from "./inbox.js";

/**
 * Where an agent's reply goes: the customer's own channel, the same delivery path as the AI's; for a USSD
 * session or a call, an SMS through the tenant's SMS channel, or, without one, nowhere (recorded as a failed
 * delivery that asks the agent to call the customer back).
 */
async function routeFor(db: TenantDb, conversation: { channel: string; customerPhone: string | null }) {
  if (!sessionChannels.has(conversation.channel)) return { via: undefined, undeliverable: null };
  const sms = await db.channel.findFirst({ where: { type: "sms", enabled: true }, select: { id: true } });
  if (sms && conversation.customerPhone) return { via: { channelId: sms.id, channel: "sms" }, undeliverable: null };
  const callBack = `A ${conversation.channel} customer cannot be sent a later reply and there is no SMS channel: call them back on ${conversation.customerPhone ?? "their number"}`;
  return { via: undefined, undeliverable: callBack };
}

/** Claims an unassigned escalation for the user who replies, so that nobody else answers over them. */
async function claimFor(services: Services, db: TenantDb, principal: Principal, conversationId: string) {
  return db.$transaction(async (tx) => {
    await lockTenantFor(tx, "assignment", principal.tenantId);
    const escalation = await tx.escalation.findFirst({
      where: { conversationId, status: { not: "resolved" } },
      include: { conversation: { select: { id: true, tenantId: true, status: true } } },
    });
    if (!escalation) return { escalation: null, claimed: false };
    assertMayWork(principal, escalation);
    if (escalation.assigneeId || principal.kind !== "user") return { escalation, claimed: false };
    const me = await tx.user.findUniqueOrThrow({ where: { id: principal.id }, select: { id: true, name: true } });
    await assignEscalation(services, tx, escalation, me, { actor: principal.id, how: "by replying" });
    return { escalation, claimed: true };
  });
}

/**
 * An agent's (or an API caller's) reply to a customer whose conversation the humans have: stored with role
 * `agent` and delivered like an AI reply. The first one stamps the escalation's first response time.
 */
export async function replyAsAgent(
  services: Services,
  db: TenantDb,
  principal: Principal,
  input: { conversationId: string; content: string },
): Promise<string> {
  const conversation = await db.conversation.findUnique({ where: { id: input.conversationId } });
  if (!conversation) throw notFound("Conversation");
  // A request queued out of business hours leaves the conversation `open`; an agent who answers it takes it.
  const queued =
    conversation.status === "open" &&
    (await db.escalation.count({ where: { conversationId: conversation.id, status: "open", outOfHours: true } })) > 0;
  if (!humanStatuses.has(conversation.status) && !queued) {
    throw new AppError("VALIDATION", `The conversation is ${conversation.status}: escalate it before an agent replies`, [
      { path: "conversationId", message: `status ${conversation.status}` },
    ]);
  }
  const { escalation, claimed } = await claimFor(services, db, principal, conversation.id);
  const author =
    principal.kind === "user"
      ? await db.user.findUnique({ where: { id: principal.id }, select: { id: true, name: true } })
      : null;
  const route = await routeFor(db, conversation);
  const reply: ReplyToStore = {
    id: newId("msg"),
    tenantId: conversation.tenantId,
    conversationId: conversation.id,
    channel: conversation.channel,
    role: "agent",
    content: input.content,
    metadata: { agentId: principal.id, agentName: author?.name ?? null },
    via: route.via,
    undeliverable: route.undeliverable ?? undefined,
  };
  await deliverReply(services, reply);
  if (escalation) {
    await db.escalation.updateMany({
      where: { id: escalation.id, firstResponseAt: null },
      data: { firstResponseAt: new Date() },
    });
    if (claimed) {
      publishInbox(services, principal.tenantId, {
        type: "assigned",
        conversationId: conversation.id,
        escalationId: escalation.id,
      });
    }
  }
  return reply.id;
}
