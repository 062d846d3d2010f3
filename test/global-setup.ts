import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/**
 * Gives the run a temporary directory of its own for the tests' data directories (test/helpers/temp.ts), and
 * fails the run if anything is left in it at the end: every test must remove what it made, and a service's
 * shutdown must leave nothing behind. Removed either way.
 */
export default function setup(): () => void {
  const runDir = mkdtempSync(path.join(tmpdir(), "parley-run-"));
  process.env.PARLEY_TEST_TMP = runDir;
  return () => {
    const left = readdirSync(runDir);
    rmSync(runDir, { recursive: true, force: true });
    if (!left.length) return;
    // Vitest reports an error thrown here but still exits 0: the exit code is set as well.
    process.exitCode = 1;
    throw new Error(`Tests left temporary directories behind (now removed): ${left.join(", ")}`);
  };
}
