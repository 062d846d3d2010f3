import type { MeFragment, Role } from "../generated";
import { createStore, useStore } from "./store";

export interface Session {
  token: string;
  expiresAt: string;
  user: MeFragment;
  /** The tenant requires two-factor sign-in and this user has none yet: the session may only enrol. */
  mfaEnrolmentRequired?: boolean;
}

// In memory, and in sessionStorage so that a reload keeps the login (a tab's own storage: closing it logs out).
const storageKey = "parley.session";

function stored(): Session | null {
  try {
    const session = JSON.parse(sessionStorage.getItem(storageKey) ?? "null") as Session | null;
    return session && new Date(session.expiresAt) > new Date() ? session : null;
  } catch {
    return null;
  }
}

const session = createStore<Session | null>(stored());
/** Why the user is on the login page again: said once there. */
export const signedOutReason = createStore<string | null>(null);

export function currentSession(): Session | null {
  return session.get();
}

export function signIn(value: Session): void {
  sessionStorage.setItem(storageKey, JSON.stringify(value));
  signedOutReason.set(null);
  session.set(value);
}

/** Leaves the app for the login page; what the user typed (drafts) stays in sessionStorage for after it. */
export function signOut(reason: string | null = null): void {
  sessionStorage.removeItem(storageKey);
  signedOutReason.set(reason);
  session.set(null);
}

export function updateUser(user: MeFragment): void {
  const current = session.get();
  if (current) signIn({ ...current, user });
}

export const useSession = () => useStore(session);

/** Whether the session is held back until its user enrols in two-factor sign-in (the API said so, or it ended). */
function setEnrolmentRequired(required: boolean): void {
  const current = session.get();
  if (current && (current.mfaEnrolmentRequired ?? false) !== required) signIn({ ...current, mfaEnrolmentRequired: required });
}
export const enrolmentRequired = () => setEnrolmentRequired(true);
export const enrolmentDone = () => setEnrolmentRequired(false);

type Permission = "read" | "converse" | "configure" | "manageKeys";

// The API's roles (src/auth/roles.ts): the UI hides what a role may not do; the API refuses it anyway.
const granted: Record<Role, Permission[]> = {
  owner: ["read", "converse", "configure", "manageKeys"],
  admin: ["read", "converse", "configure"],
  agent: ["read", "converse"],
  viewer: ["read"],
};

export function can(role: Role | undefined, permission: Permission): boolean {
  return role ? granted[role].includes(permission) : false;
}

export function useCan(permission: Permission): boolean {
  return can(useSession()?.user.role, permission);
}
