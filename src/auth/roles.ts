export const roles = ["owner", "admin", "agent", "viewer"] as const;
export type Role = (typeof roles)[number];

/**
 * What each role may do (DESIGN §3 "Roles"): read everything of the tenant, converse (chat,
 * reply to customers, work escalations), configure (channels, knowledge, agents, settings),
 * manage API keys, and export transcripts in bulk (every customer's words at once: admins and owners).
 */
export const permissions = ["read", "converse", "configure", "manageKeys", "export"] as const;
export type Permission = (typeof permissions)[number];

const granted: Record<Role, ReadonlySet<Permission>> = {
  owner: new Set(permissions),
  admin: new Set(["read", "converse", "configure", "export"]),
  agent: new Set(["read", "converse"]),
  viewer: new Set(["read"]),
};

export function can(role: Role, permission: Permission): boolean {
  return granted[role].has(permission);
}

export function isRole(value: unknown): value is Role {
  return typeof value === "string" && (roles as readonly string[]).includes(value);
}
