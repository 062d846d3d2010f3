import type { Principal } from "../auth/principal.js";
import { can } from "../auth/roles.js";
import { AppError } from "../errors.js";

/**
 * Who may work an escalation (README, Escalations): an admin or owner any; an agent the ones nobody has
 * yet and their own; a viewer none.
 */
export function assertMayWork(principal: Principal, escalation: { assigneeId: string | null }): void {
  if (can(principal.role, "configure")) return;
  if (!can(principal.role, "converse")) throw new AppError("FORBIDDEN", `The ${principal.role} role may not work escalations`);
  if (escalation.assigneeId && escalation.assigneeId !== principal.id) {
    throw new AppError("FORBIDDEN", "This escalation is assigned to another agent");
  }
}

/** Giving an escalation to someone other than oneself is an admin's call. */
export function assertMayAssignTo(principal: Principal, assigneeId: string): void {
  if (assigneeId !== principal.id && !can(principal.role, "configure")) {
    throw new AppError("FORBIDDEN", "Only an admin or owner may assign an escalation to someone else");
  }
}
