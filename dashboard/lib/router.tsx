import type { AnchorHTMLAttributes, MouseEvent } from "react";
import { createStore, useStore } from "./store";

// Client-side routes under /dashboard on the history API; the service answers every /dashboard/* with the app.
const location = createStore({ path: window.location.pathname, search: window.location.search });
window.addEventListener("popstate", () => location.set({ path: window.location.pathname, search: window.location.search }));

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (options.replace) history.replaceState(null, "", to);
  else history.pushState(null, "", to);
  location.set({ path: window.location.pathname, search: window.location.search });
  // A new page: focus moves to its content, as a page load would, so that a screen reader starts there.
  if (!options.replace) document.getElementById("main")?.focus({ preventScroll: true });
}

export const useLocation = () => useStore(location);

/** The query string's value, and a setter that keeps the page's filters in its address (a reload keeps them). */
export function useSearchParam(name: string): [string, (value: string) => void] {
  const { search } = useLocation();
  const value = new URLSearchParams(search).get(name) ?? "";
  const set = (next: string) => {
    const params = new URLSearchParams(window.location.search);
    if (next) params.set(name, next);
    else params.delete(name);
    const query = params.toString();
    navigate(`${window.location.pathname}${query ? `?${query}` : ""}`, { replace: true });
  };
  return [value, set];
}

export function Link({ to, ...props }: AnchorHTMLAttributes<HTMLAnchorElement> & { to: string }) {
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    props.onClick?.(event);
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
    event.preventDefault();
    navigate(to);
  };
  return <a {...props} href={to} onClick={onClick} />;
}
