/** Why a conversation went to the humans: the router's four reasons, or `manual` for an API call. */
export const escalationReasons = ["customer_request", "urgent_intent", "low_confidence", "engine_failure", "manual"] as const;
export type EscalationReason = (typeof escalationReasons)[number];

export const escalationPriorities = ["low", "normal", "high", "urgent"] as const;
export type EscalationPriority = (typeof escalationPriorities)[number];

/** open: waiting for an agent; assigned: an agent has it; resolved: handed back (final). */
export const escalationStatuses = ["open", "assigned", "resolved"] as const;
export type EscalationStatus = (typeof escalationStatuses)[number];

/** A fraud report waits less than a question the AI could not ground. */
export function priorityFor(reason: EscalationReason): EscalationPriority {
  if (reason === "urgent_intent") return "urgent";
  if (reason === "engine_failure") return "high";
  return "normal";
}

/** Higher first: the order in which waiting escalations are handed out. */
export const priorityRank = (priority: string): number => escalationPriorities.indexOf(priority as EscalationPriority);

/** Roles that answer customers: a viewer is never given a conversation. */
export const workingRoles = ["owner", "admin", "agent"] as const;
