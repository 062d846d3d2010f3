import { Worker, type WorkerOptions } from "node:worker_threads";

/**
 * A worker thread that runs a TypeScript module. Threads do not inherit the main thread's `--import tsx` (Node 20
 * applies no loader to a worker's entry, and vitest has none), so each starts from boot.mjs, which registers tsx and
 * then imports `entry`. It takes none of the process's flags: an inherited --input-type, say, would stop it starting.
 */
export function typeScriptThread(entry: URL, options: Omit<WorkerOptions, "workerData" | "execArgv" | "eval"> = {}): Worker {
  return new Worker(new URL("./boot.mjs", import.meta.url), { ...options, execArgv: [], workerData: { entry: entry.href } });
}
