import { readFileSync } from "node:fs";
import { freePort, runScript, whenServing } from "../helpers/process.js";

/** The service as `npm start` runs it (`src/main.ts`), in a process of its own. */
export interface ServiceProcess {
  /** Its HTTP address; a ROLE=worker process listens on none, and its `url` answers nothing. */
  url: string;
  pid: number;
  /** From the spawn to `/readyz` answered 200; for a worker, which has no readiness to ask, 0. */
  readyS: number;
  /** SIGTERM, then SIGKILL if it has not exited within `graceMs`; resolves once it has exited. */
  stop(graceMs?: number): Promise<void>;
}

// A benchmark that throws still stops its processes in its `finally`; this catches an exit that skips it (process.exit).
const running = new Set<() => void>();
process.once("exit", () => {
  for (const kill of running) kill();
});

// Node's own flags of `npm start` (package.json), given to the process here too.
const startFlags = (
  JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { scripts: { start: string } }
).scripts.start
  .split(/\s+/)
  .filter((arg) => /^--[a-z-]+=/.test(arg));

const whenReady = (url: string) => whenServing(`${url}/readyz`, undefined, 600_000, (res) => res.status === 200);

/**
 * Starts `src/main.ts` on `env` and, unless ROLE=worker (which serves no HTTP), waits until `/readyz` answers 200.
 * With `profile`, and BENCH_CPU_PROFILE naming a directory, the process writes its CPU profiles in `<profile>/` there
 * as it exits.
 */
export async function startServiceProcess(env: Record<string, string>, profile?: string): Promise<ServiceProcess> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const directory = process.env.BENCH_CPU_PROFILE;
  // Each thread (the trainer's too) writes a profile of its own, named by process and thread id, so one folder each.
  const nodeArgs = [...startFlags, ...(profile && directory ? ["--cpu-prof", `--cpu-prof-dir=${directory}/${profile}`] : [])];
  const service = runScript("src/main.ts", [], { ...env, PORT: String(port) }, nodeArgs);
  const kill = () => service.child.kill("SIGKILL");
  running.add(kill);
  let exited = false;
  const exit = service.exit().then(() => {
    exited = true;
    running.delete(kill);
  });
  const stop = async (graceMs = 30_000) => {
    if (exited) return;
    service.child.kill("SIGTERM");
    const timer = setTimeout(kill, graceMs);
    await exit;
    clearTimeout(timer);
  };
  const failed = () => new Error(`the service process exited before it was ready: ${service.stderr()}`);
  try {
    if (env.ROLE !== "worker") await Promise.race([whenReady(url), exit.then(() => Promise.reject(failed()))]);
    const readyS = env.ROLE === "worker" ? 0 : (performance.now() - started) / 1000;
    return { url, pid: service.child.pid!, readyS, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * Runs `src/main.ts` on `env` until `use` is done, once it answers `/readyz` with 200; returns how long that took.
 * `profile` as for `startServiceProcess`.
 */
export async function withServiceProcess(
  env: Record<string, string>,
  use: (url: string) => Promise<void>,
  profile?: string,
): Promise<{ readyS: number }> {
  const service = await startServiceProcess(env, profile);
  try {
    await use(service.url);
    return { readyS: service.readyS };
  } finally {
    await service.stop();
  }
}
