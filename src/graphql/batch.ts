import type { GraphQLContext } from "./context.js";

type Loader<V> = (key: string) => Promise<V | null>;

// One map of loaders per request: the request's tenant-scoped client is made for it alone (src/graphql/context.ts).
const loadersByRequest = new WeakMap<object, Map<string, Loader<unknown>>>();

/**
 * Loads that a field asks for in the same tick (one per item of a page) go to the database as one query, once per
 * request: a page of 100 conversations asks for their last messages in one statement, not 100.
 */
export function batchLoader<V>(ctx: GraphQLContext, name: string, fetch: (keys: string[]) => Promise<Map<string, V>>): Loader<V> {
  let loaders = loadersByRequest.get(ctx.db);
  if (!loaders) {
    loaders = new Map();
    loadersByRequest.set(ctx.db, loaders);
  }
  const existing = loaders.get(name);
  if (existing) return existing as Loader<V>;
  const results = new Map<string, Promise<V | null>>();
  let pending: Array<{ key: string; resolve: (value: V | null) => void; reject: (err: unknown) => void }> = [];
  const flush = async () => {
    const batch = pending;
    pending = [];
    try {
      const found = await fetch([...new Set(batch.map((p) => p.key))]);
      for (const p of batch) p.resolve(found.get(p.key) ?? null);
    } catch (err) {
      for (const p of batch) p.reject(err);
    }
  };
  const loader: Loader<V> = (key) => {
    let result = results.get(key);
    if (!result) {
      result = new Promise<V | null>((resolve, reject) => {
        if (!pending.length) setImmediate(flush);
        pending.push({ key, resolve, reject });
      });
      results.set(key, result);
    }
    return result;
  };
  loaders.set(name, loader as Loader<unknown>);
  return loader;
}
