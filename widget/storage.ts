// What the widget keeps in the browser: the visitor id (so the conversation survives reloads and new tabs) and
// whether the panel was open (for this tab only). Storage can be refused (private modes, sandboxed frames):
// the widget then works for the page's lifetime.

function attempt<T>(work: () => T, fallback: T): T {
  try {
    return work();
  } catch {
    return fallback;
  }
}

/** The channel a token names (its second part), so that a new token for the same channel keeps the visitor. */
export function storageKeyOf(token: string): string {
  const decoded = attempt(() => atob(token.replace(/-/g, "+").replace(/_/g, "/")), "");
  return `parley:${decoded.split(":")[1] ?? token.slice(0, 32)}`;
}

export const loadVisitor = (key: string) => attempt(() => localStorage.getItem(`${key}:visitor`), null);
export const saveVisitor = (key: string, id: string) => attempt(() => localStorage.setItem(`${key}:visitor`, id), undefined);

export const wasOpen = (key: string) => attempt(() => sessionStorage.getItem(`${key}:open`) === "1", false);
export const rememberOpen = (key: string, open: boolean) =>
  attempt(() => sessionStorage.setItem(`${key}:open`, open ? "1" : "0"), undefined);
