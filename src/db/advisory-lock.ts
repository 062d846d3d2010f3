import type { Prisma } from "./generated/prisma/client.js";

/**
 * Serialises one kind of decision per tenant until the transaction ends (who gets the next escalation, which record
 * the next audit record chains onto, whether an owner is the last one): two instances deciding at once would each
 * see the other's slot free.
 */
export async function lockTenantFor(
  tx: Pick<Prisma.TransactionClient, "$queryRaw">,
  purpose: "assignment" | "owners" | "audit",
  tenantId: string,
): Promise<void> {
  await tx.$queryRaw`SELECT 1 AS locked FROM pg_advisory_xact_lock(hashtext(${`${purpose}:${tenantId}`}))`;
}
