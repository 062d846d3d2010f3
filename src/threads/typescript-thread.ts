import { Worker, type WorkerOptions, workerData } from "node:worker_threads";

/**
 * A worker thread that runs a TypeScript module. Threads do not inherit the main thread's `--import tsx` (Node 20
 * applies no loader to a worker's entry, and vitest has none), so each starts from boot.mjs, which registers tsx and
 * then imports `entry`. It takes none of the process's flags: an inherited --input-type, say, would stop it starting.
 * `data` is copied to the thread, which reads it with `threadData()`.
 */
export function typeScriptThread(
  entry: URL,
  options: Omit<WorkerOptions, "workerData" | "execArgv" | "eval"> = {},
  data?: unknown,
): Worker {
  return new Worker(new URL("./boot.mjs", import.meta.url), {
    ...options,
    execArgv: [],
    workerData: { entry: entry.href, data },
  });
}

/** In a thread started by `typeScriptThread`, the data it was given. */
export function threadData<T>(): T {
  return (workerData as { data: T }).data;
}
