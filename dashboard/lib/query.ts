import { useCallback, useEffect, useRef, useState } from "react";
import type { TypedDocumentString } from "../generated";
import { gql } from "./api";

export interface QueryState<T> {
  data: T | null;
  error: unknown;
  loading: boolean;
  /** Asks again (after a change, or on a live event); the data shown stays until the answer. */
  reload: () => Promise<void>;
}

/** Runs a query while mounted, again whenever its variables change; answers that arrive late are dropped. */
export function useQuery<TResult, TVariables>(
  document: TypedDocumentString<TResult, TVariables>,
  variables: TVariables,
  options: { skip?: boolean } = {},
): QueryState<TResult> {
  const [state, setState] = useState<{ data: TResult | null; error: unknown; loading: boolean }>({
    data: null,
    error: null,
    loading: !options.skip,
  });
  const key = JSON.stringify(variables);
  const latest = useRef(0);
  const run = useCallback(async () => {
    const call = ++latest.current;
    setState((s) => ({ ...s, loading: true }));
    try {
      const data = await gql(document, JSON.parse(key) as TVariables);
      if (call === latest.current) setState({ data, error: null, loading: false });
    } catch (error) {
      if (call === latest.current) setState((s) => ({ ...s, error, loading: false }));
    }
  }, [document, key]);
  useEffect(() => {
    if (!options.skip) void run();
  }, [run, options.skip]);
  return { ...state, reload: run };
}

/** A mutation's call with its pending state and error, for a button or form. */
export function useAction<A extends unknown[], R>(action: (...args: A) => Promise<R>) {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = async (...args: A): Promise<R | undefined> => {
    setPending(true);
    setError(null);
    try {
      return await action(...args);
    } catch (err) {
      setError(err);
      return undefined;
    } finally {
      setPending(false);
    }
  };
  return { run, pending, error, clearError: () => setError(null) };
}
