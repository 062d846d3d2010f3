import { z } from "zod";
import type { Principal } from "../auth/principal.js";
import type { LegalHold } from "../db/generated/prisma/client.js";
import { newId } from "../db/ids.js";
import type { TenantDb } from "../db/tenant-scope.js";
import { AppError, notFound } from "../errors.js";
import { parseInput } from "../graphql/validate.js";
import { type CustomerIdentity, customerIdentityInput } from "./identity.js";

const reason = z.string().trim().min(3, "say why (at least 3 characters)").max(1_000);

export const placeHoldInput = z.object({
  conversationId: z.string().min(1).max(100).optional(),
  customer: customerIdentityInput.optional(),
  reason,
});

export const releaseHoldInput = z.object({ id: z.string().min(1).max(100), reason });

/** What a hold and a conversation are compared on. */
interface Covered {
  id: string;
  channel: string;
  customerId: string | null;
  customerPhone: string | null;
}

/**
 * Whether an active hold covers a conversation: the conversation itself, the customer's id on its channel, or their
 * phone number on any channel. The same rule as `heldConversationSql`, which retention applies in the database.
 */
export function covers(hold: LegalHold, c: Covered): boolean {
  if (hold.releasedAt) return false;
  if (hold.conversationId) return hold.conversationId === c.id;
  if (hold.customerPhone) return hold.customerPhone === c.customerPhone;
  return hold.channel === c.channel && hold.customerId !== null && hold.customerId === c.customerId;
}

/** `covers` as SQL: true when an active hold covers the conversation aliased `c`. */
export const heldConversationSql = `EXISTS (
  SELECT 1 FROM legal_holds h
   WHERE h.tenant_id = c.tenant_id AND h.released_at IS NULL
     AND (h.conversation_id = c.id OR h.customer_phone = c.customer_phone
          OR (h.conversation_id IS NULL AND h.customer_phone IS NULL AND h.channel = c.channel AND h.customer_id = c.customer_id)))`;

/** What reads holds: the tenant's client or one of its transactions. */
type HoldReader = Pick<TenantDb, "legalHold">;

export function activeHolds(db: HoldReader): Promise<LegalHold[]> {
  return db.legalHold.findMany({ where: { releasedAt: null }, orderBy: { createdAt: "asc" } });
}

function coveredBy(input: z.infer<typeof placeHoldInput>): { conversationId: string } | CustomerIdentity {
  if ((input.conversationId === undefined) === (input.customer === undefined)) {
    throw new AppError("VALIDATION", "A hold covers either a conversation or a customer", [
      { path: "conversationId", message: "give either conversationId or customer" },
    ]);
  }
  return input.conversationId !== undefined ? { conversationId: input.conversationId } : input.customer!;
}

/** Places a hold on a conversation of the tenant (404 when it has none by that id) or on a customer. */
export async function placeHold(db: TenantDb, principal: Principal, args: unknown): Promise<LegalHold> {
  const input = parseInput(placeHoldInput, args);
  const what = coveredBy(input);
  if (
    "conversationId" in what &&
    !(await db.conversation.findUnique({ where: { id: what.conversationId }, select: { id: true } }))
  ) {
    throw notFound("Conversation");
  }
  const covered = {
    conversationId: "conversationId" in what ? what.conversationId : null,
    channel: "channel" in what ? (what.channel ?? null) : null,
    customerId: "customerId" in what ? (what.customerId ?? null) : null,
    customerPhone: "phone" in what ? (what.phone ?? null) : null,
  };
  return db.$transaction(async (tx) => {
    // The conversations it covers are locked first: a retention batch or an erasure that holds them finishes
    // before the hold exists (they are gone), and one that comes after sees the hold.
    await tx.$queryRaw`
      SELECT id FROM conversations
       WHERE tenant_id = ${principal.tenantId}
         AND (id = ${covered.conversationId} OR customer_phone = ${covered.customerPhone}
              OR (channel = ${covered.channel} AND customer_id = ${covered.customerId}))
       FOR UPDATE`;
    return tx.legalHold.create({
      data: {
        id: newId("hold"),
        tenantId: principal.tenantId,
        ...covered,
        reason: input.reason,
        placedBy: principal.id,
        placedByLabel: principal.label ?? null,
      },
    });
  });
}

/** Releases an active hold, saying why; what it covered is then subject to retention and erasure again. */
export async function releaseHold(db: TenantDb, principal: Principal, args: unknown): Promise<LegalHold> {
  const input = parseInput(releaseHoldInput, args);
  const released = await db.legalHold.updateMany({
    where: { id: input.id, releasedAt: null },
    data: { releasedAt: new Date(), releasedBy: principal.id, releaseReason: input.reason },
  });
  const hold = await db.legalHold.findUnique({ where: { id: input.id } });
  if (!hold) throw notFound("Legal hold");
  if (!released.count) throw new AppError("VALIDATION", "The hold was already released", [{ path: "id", message: "released" }]);
  return hold;
}
