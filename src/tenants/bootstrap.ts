import { randomBytes } from "node:crypto";
import { hashPassword } from "../agents/passwords.js";
import { newId } from "../db/ids.js";
import { developmentSetDir, seedDevelopmentSet } from "../evaluations/demo-set.js";
import type { Services } from "../services.js";
import { createTenant } from "./create-tenant.js";

export const demoTenantName = "Demo Bank";
export const demoOwnerEmail = "owner@demo-bank.example";

export interface DemoTenant {
  tenantId: string;
  apiKey: string;
  /** The dashboard's first login: an owner whose generated password is printed once, like the key. */
  owner: { email: string; password: string };
}

/**
 * On the first start against an empty database, a demo tenant so that a newcomer can try the
 * service at once. Runs in a transaction-free check: with several instances starting together,
 * the advisory lock makes only one of them create it. It knows the development set's FAQ and has its questions as
 * its evaluation set, so that `npm run eval` works out of the box.
 */
export async function ensureDemoTenant(services: Services, evaluationSetDir = developmentSetDir): Promise<DemoTenant | null> {
  const lock = 7_270_736_901;
  await services.db.sql.query("SELECT pg_advisory_lock($1)", [lock]);
  try {
    if ((await services.db.prisma.tenant.count()) > 0) return null;
    const created = await createTenant(services.db.prisma, demoTenantName);
    await seedDevelopmentSet(services, created.tenantId, evaluationSetDir);
    const owner = { email: demoOwnerEmail, password: randomBytes(15).toString("base64url") };
    await services.db.prisma.user.create({
      data: {
        id: newId("usr"),
        tenantId: created.tenantId,
        name: "Demo owner",
        email: owner.email,
        role: "owner",
        passwordHash: await hashPassword(owner.password),
      },
    });
    return { tenantId: created.tenantId, apiKey: created.apiKey, owner };
  } finally {
    await services.db.sql.query("SELECT pg_advisory_unlock($1)", [lock]);
  }
}
