import { createClient } from "graphql-sse";
import { useEffect, useRef } from "react";
import type { TypedDocumentString } from "../generated";
import { currentSession } from "./session";

/**
 * A subscription over graphql-sse for as long as the component is mounted (reconnecting with the current token if
 * the stream drops); `onData` sees each event. Events sent while the stream was down are not replayed, so
 * `onReconnected` is called once it is back: the page reads again what it shows.
 */
export function useSubscription<TResult, TVariables>(
  document: TypedDocumentString<TResult, TVariables>,
  variables: TVariables,
  onData: (data: TResult) => void,
  { enabled = true, onReconnected }: { enabled?: boolean; onReconnected?: () => void } = {},
): void {
  const handler = useRef(onData);
  handler.current = onData;
  const reconnected = useRef(onReconnected);
  reconnected.current = onReconnected;
  const key = JSON.stringify(variables);
  useEffect(() => {
    if (!enabled) return;
    const client = createClient({
      url: "/graphql",
      headers: (): Record<string, string> => {
        const token = currentSession()?.token;
        return token ? { authorization: `Bearer ${token}` } : {};
      },
      retryAttempts: 1_000,
    });
    const dispose = client.subscribe<TResult>(
      { query: document.toString(), variables: JSON.parse(key) as Record<string, unknown> },
      {
        next: (result) => {
          if (result.data) handler.current(result.data as TResult);
        },
        error: () => undefined,
        complete: () => undefined,
      },
      {
        connected: (again) => {
          if (again) reconnected.current?.();
        },
      },
    );
    return () => {
      dispose();
      client.dispose();
    };
  }, [document, key, enabled]);
}
