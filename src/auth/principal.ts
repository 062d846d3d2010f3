import { can, type Permission, type Role } from "./roles.js";

/** Who is making a request, once their credential has been checked. */
export interface Principal {
  kind: "apiKey" | "user";
  /** The API key's or the user's id. */
  id: string;
  /** A dashboard user's session (kind `user`), so that logging out ends this one only. */
  sessionId?: string;
  tenantId: string;
  role: Role;
  /** Who it is, readable: the API key's prefix or the user's e-mail (the audit trail records it). */
  label?: string;
  /** Requests per window allowed for this tenant (its setting, or the service default). */
  rateLimit: { max: number; windowS: number };
  /**
   * A dashboard user of a tenant that requires two-factor sign-in who has not enrolled: until they have, the session
   * may only enrol (and read who it is, and log out).
   */
  mfaEnrolmentRequired?: boolean;
}

/** Whether the caller may do what `permission` covers: their role allows it and nothing holds the session back. */
export function permits(principal: Principal | null, permission: Permission): boolean {
  return principal !== null && !principal.mfaEnrolmentRequired && can(principal.role, permission);
}
