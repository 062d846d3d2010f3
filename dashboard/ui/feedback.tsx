import type { ReactNode } from "react";
import { describeError } from "../lib/api";

/** An API error in words, announced to screen readers. */
export function ErrorNotice({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p className="notice error" role="alert">
      {describeError(error)}
    </p>
  );
}

export function Status({ children }: { children: ReactNode }) {
  return (
    <p className="notice ok" role="status">
      {children}
    </p>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p className="muted" role="status">
      Loading {what}…
    </p>
  );
}

export function Badge({ tone = "neutral", children }: { tone?: string; children: ReactNode }) {
  return <span className={`badge ${tone}`}>{children}</span>;
}
