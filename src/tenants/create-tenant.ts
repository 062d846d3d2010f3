import { issueApiKey } from "../auth/api-keys.js";
import type { PrismaClient } from "../db/generated/prisma/client.js";
import { newId } from "../db/ids.js";

export interface CreatedTenant {
  tenantId: string;
  name: string;
  apiKey: string;
}

/** A new tenant with its first (owner) API key. */
export async function createTenant(prisma: PrismaClient, name: string): Promise<CreatedTenant> {
  const trimmed = name.trim();
  if (!trimmed) throw new Error("A tenant needs a name");
  const tenantId = newId("ten");
  await prisma.tenant.create({ data: { id: tenantId, name: trimmed } });
  const { key } = await issueApiKey(prisma, tenantId, { name: "Initial owner key", role: "owner" });
  return { tenantId, name: trimmed, apiKey: key };
}
