/**
 * `compute` remembered by `keyOf`, for what depends on a passage's text alone (its terms, its sentences, its intent
 * profile): a knowledge base's passages come back question after question. At most `limit` keys are kept; once full,
 * all are forgotten at once, which costs a look-up no bookkeeping, and the passages in use are back after a few
 * questions. The values are shared between callers, never to be changed.
 */
export function remembered<A extends unknown[], T extends object | null>(
  limit: number,
  keyOf: (...args: A) => string,
  compute: (...args: A) => T,
): (...args: A) => T {
  const values = new Map<string, T>();
  return (...args) => {
    const key = keyOf(...args);
    let value = values.get(key);
    if (value === undefined) {
      if (values.size >= limit) values.clear();
      value = compute(...args);
      values.set(key, value);
    }
    return value;
  };
}
