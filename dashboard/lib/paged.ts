import { useCallback, useEffect, useRef, useState } from "react";

/**
 * A long server-paged list read page by page as it scrolls into view (the inbox's 100,000 conversations, a
 * transcript's 5,000 messages): rows are fetched by the page that holds them, and `refresh` reads the loaded pages
 * again (a live event).
 */
export function usePagedRows<T>(
  fetchPage: (page: number, limit: number) => Promise<{ total: number; items: T[] }>,
  pageSize: number,
  resetKey: string,
) {
  const [total, setTotal] = useState<number | null>(null);
  const [rows, setRows] = useState<Map<number, T>>(new Map());
  const [error, setError] = useState<unknown>(null);
  // The newest read of each page loaded or asked for: an answer that a newer read (another list, or a later
  // refresh) overtook is dropped, so that a slow read of the previous filter cannot fill the new one.
  const latest = useRef(new Map<number, number>());
  const reads = useRef(0);
  const fetcher = useRef(fetchPage);
  fetcher.current = fetchPage;

  const load = useCallback(
    async (page: number) => {
      const read = ++reads.current;
      latest.current.set(page, read);
      const current = () => latest.current.get(page) === read;
      try {
        const result = await fetcher.current(page, pageSize);
        if (!current()) return null;
        setError(null);
        setTotal(result.total);
        setRows((previous) => {
          const next = new Map(previous);
          for (const [i, item] of result.items.entries()) next.set((page - 1) * pageSize + i, item);
          return next;
        });
        return result;
      } catch (err) {
        if (!current()) return null;
        latest.current.delete(page);
        setError(err);
        return null;
      }
    },
    [pageSize],
  );

  // biome-ignore lint/correctness/useExhaustiveDependencies: resetKey names the list: a new one starts empty
  useEffect(() => {
    latest.current = new Map();
    setRows(new Map());
    setTotal(null);
    void load(1);
  }, [resetKey, load]);

  /** Loads the pages holding rows first..last that are not loaded or asked for yet. */
  const ensure = useCallback(
    (first: number, last: number) => {
      for (let page = Math.floor(first / pageSize) + 1; page <= Math.floor(last / pageSize) + 1; page++) {
        if (!latest.current.has(page)) void load(page);
      }
    },
    [load, pageSize],
  );

  const refresh = useCallback(async () => {
    const pages = [...latest.current.keys()];
    await Promise.all(pages.map((page) => load(page)));
  }, [load]);

  return { total, rows, error, ensure, refresh, load, setRows, setTotal };
}
