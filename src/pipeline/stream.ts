/**
 * Turns callback-style progress into an async iterator: the pipeline pushes, a subscription pulls.
 * Closing the iterator (a client that went away) aborts the work through `signal`.
 */
export class EventChannel<T> implements AsyncIterableIterator<T> {
  private readonly queue: T[] = [];
  private waiting: ((result: IteratorResult<T>) => void) | null = null;
  private finished = false;
  private failure: unknown = null;
  readonly abort = new AbortController();

  push(value: T): void {
    if (this.finished) return;
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = null;
      resolve({ value, done: false });
    } else this.queue.push(value);
  }

  end(error?: unknown): void {
    if (this.finished) return;
    this.finished = true;
    this.failure = error ?? null;
    if (this.waiting && !this.queue.length) {
      const resolve = this.waiting;
      this.waiting = null;
      resolve({ value: undefined, done: true });
    }
  }

  async next(): Promise<IteratorResult<T>> {
    const value = this.queue.shift();
    if (value !== undefined) return { value, done: false };
    if (this.finished) {
      if (this.failure) {
        const error = this.failure;
        this.failure = null;
        throw error;
      }
      return { value: undefined, done: true };
    }
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  async return(): Promise<IteratorResult<T>> {
    this.abort.abort();
    this.end();
    return { value: undefined, done: true };
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }
}
