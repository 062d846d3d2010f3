import { createHash, randomBytes } from "node:crypto";
import { newId } from "../db/ids.js";
import type { Services } from "../services.js";

/**
 * `mfa`: the password (or the tenant's provider) was right and a code is due; `oidc`: the tenant's provider vouched
 * for the user and the dashboard exchanges the ticket for a session.
 */
export type TicketPurpose = "mfa" | "oidc";
/** How the session a ticket leads to was opened. */
export type SignInMethod = "password" | "oidc";

const lifetimeMs: Record<TicketPurpose, number> = {
  // Time to open the authenticator app and type a code (or find a recovery code).
  mfa: 5 * 60_000,
  // A redirect and one request: the dashboard exchanges it at once.
  oidc: 2 * 60_000,
};
const prefix: Record<TicketPurpose, string> = { mfa: "mfc_", oidc: "olc_" };

const hashTicket = (token: string) => createHash("sha256").update(token).digest("hex");

export interface IssuedTicket {
  token: string;
  expiresAt: Date;
}

export interface Ticket {
  userId: string;
  tenantId: string;
  method: SignInMethod;
}

export async function issueTicket(
  services: Services,
  user: { id: string; tenantId: string },
  purpose: TicketPurpose,
  method: SignInMethod,
): Promise<IssuedTicket> {
  const token = `${prefix[purpose]}${randomBytes(32).toString("base64url")}`;
  const expiresAt = new Date(Date.now() + lifetimeMs[purpose]);
  // Each new ticket clears the user's stale ones, so the table holds only tickets that can still be used.
  await services.db.prisma.loginTicket.deleteMany({ where: { userId: user.id, expiresAt: { lt: new Date() } } });
  await services.db.prisma.loginTicket.create({
    data: {
      id: newId("tkt"),
      tenantId: user.tenantId,
      userId: user.id,
      purpose,
      method,
      tokenHash: hashTicket(token),
      expiresAt,
    },
  });
  return { token, expiresAt };
}

/** The live ticket behind `token`, or null (unknown, expired, used, or of another purpose). */
export async function findTicket(services: Services, token: string, purpose: TicketPurpose): Promise<Ticket | null> {
  const found = await services.db.prisma.loginTicket.findUnique({ where: { tokenHash: hashTicket(token) } });
  if (!found || found.purpose !== purpose || found.expiresAt.getTime() <= Date.now()) return null;
  return { userId: found.userId, tenantId: found.tenantId, method: found.method as SignInMethod };
}

/** Uses a ticket up: true for the one caller that did, false for any other (two requests racing with one ticket). */
export async function consumeTicket(services: Services, token: string): Promise<boolean> {
  const { count } = await services.db.prisma.loginTicket.deleteMany({ where: { tokenHash: hashTicket(token) } });
  return count === 1;
}
