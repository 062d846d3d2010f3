/**
 * A map of at most `limit` entries that forgets the least recently used first. A Map keeps its keys in insertion
 * order: a key read or written is moved to the end, so the first key is the least recently used.
 */
export class RecentlyUsed<T> {
  readonly #values = new Map<string, T>();

  constructor(readonly limit: number) {}

  get size(): number {
    return this.#values.size;
  }

  has(key: string): boolean {
    return this.#values.has(key);
  }

  get(key: string): T | undefined {
    const value = this.#values.get(key);
    if (value !== undefined) {
      this.#values.delete(key);
      this.#values.set(key, value);
    }
    return value;
  }

  /** Forgets the key if it still holds `value`. */
  delete(key: string, value: T): void {
    if (this.#values.get(key) === value) this.#values.delete(key);
  }

  set(key: string, value: T): void {
    this.#values.delete(key);
    if (this.#values.size >= this.limit) this.#values.delete(this.#values.keys().next().value!);
    this.#values.set(key, value);
  }
}

/**
 * `compute` remembered by `keyOf`, for what depends on a passage's text alone (its terms, its sentences, its intent
 * profile): a knowledge base's passages come back question after question. At most `limit` keys are kept, the least
 * recently used forgotten first: on a knowledge base larger than the limit, forgetting all at once made every passage
 * in use computed again at each clear. The values are shared between callers, never to be changed.
 *
 * `holdsFor`, when given, tells whether a remembered value is still the one for these arguments: a chunk's text is
 * the key that callers already hold (a key joining it with its titles was a new string, hashed again at each look-up),
 * and its titles are compared with the value's.
 */
export function remembered<A extends unknown[], T extends object | null>(
  limit: number,
  keyOf: (...args: A) => string,
  compute: (...args: A) => T,
  holdsFor?: (value: T, ...args: A) => boolean,
): (...args: A) => T {
  const values = new RecentlyUsed<T>(limit);
  return (...args) => {
    const key = keyOf(...args);
    let value = values.get(key);
    if (value === undefined || (holdsFor && !holdsFor(value, ...args))) {
      value = compute(...args);
      values.set(key, value);
    }
    return value;
  };
}
