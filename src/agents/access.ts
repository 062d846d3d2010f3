import type { Principal } from "../auth/principal.js";
import { can } from "../auth/roles.js";
import { AppError } from "../errors.js";

/** What an agent may change of their own record without the configure permission. */
export const selfServiceFields = new Set(["name", "availability", "password", "currentPassword"]);

/**
 * Agents are managed by admins and owners; everyone may change their own name, availability and
 * password; only an owner may touch an owner or make one.
 */
export function assertMayChangeAgent(
  principal: Principal,
  target: { id: string; role: string } | null,
  changes: { role?: string } & Record<string, unknown>,
): void {
  const self = principal.kind === "user" && principal.id === target?.id;
  const onlySelfService = Object.keys(changes).every((field) => changes[field] === undefined || selfServiceFields.has(field));
  if (!(self && onlySelfService) && !can(principal.role, "configure")) {
    throw new AppError("FORBIDDEN", `The ${principal.role} role may not manage agents`);
  }
  if ((target?.role === "owner" || changes.role === "owner") && principal.role !== "owner") {
    throw new AppError("FORBIDDEN", "Only an owner may change an owner or make one");
  }
}
