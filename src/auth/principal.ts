import type { Role } from "./roles.js";

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
}
