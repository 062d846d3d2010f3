import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";

export const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

/** A port that was free a moment ago, for a child process that must print its own URL. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface Spawned {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  exit(): Promise<number | null>;
}

/** Runs a TypeScript entry point of the project the way the npm scripts do (node --import tsx), with `nodeArgs` for Node. */
export function runScript(
  entry: string,
  args: string[],
  env: Record<string, string | undefined>,
  nodeArgs: string[] = [],
): Spawned {
  const child = spawn(process.execPath, [...nodeArgs, "--import", "tsx", entry, ...args], {
    cwd: repoRoot,
    env: { ...process.env, LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout?.on("data", (d) => {
    out += d;
  });
  child.stderr?.on("data", (d) => {
    err += d;
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    async waitFor(pattern, timeoutMs = 120_000) {
      const started = Date.now();
      for (;;) {
        const match = out.match(pattern);
        if (match) return match;
        if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode} before ${pattern}: ${err}`);
        if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${pattern}; stdout: ${out}; stderr: ${err}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    exit: () => exited,
  };
}

/**
 * Polls until the service answers as `accepted` (by default with any status) and returns that response; throws when it
 * never does.
 */
export async function whenServing(
  url: string,
  init?: RequestInit,
  timeoutMs = 120_000,
  accepted: (res: Response) => boolean = () => true,
): Promise<Response> {
  const started = Date.now();
  for (;;) {
    const res = await fetch(url, init).catch(() => null);
    if (res && accepted(res)) return res;
    await res?.body?.cancel();
    if (Date.now() - started > timeoutMs) throw new Error(`${url} did not answer within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
