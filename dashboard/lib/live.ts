import { createClient } from "graphql-sse";
import { useEffect, useRef } from "react";
import type { TypedDocumentString } from "../generated";
import { currentSession } from "./session";

/**
 * A subscription over graphql-sse for as long as the component is mounted (reconnecting with the current token if
 * the stream drops); `onData` sees each event.
 */
export function useSubscription<TResult, TVariables>(
  document: TypedDocumentString<TResult, TVariables>,
  variables: TVariables,
  onData: (data: TResult) => void,
  enabled = true,
): void {
  const handler = useRef(onData);
  handler.current = onData;
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
    );
    return () => {
      dispose();
      client.dispose();
    };
  }, [document, key, enabled]);
}
