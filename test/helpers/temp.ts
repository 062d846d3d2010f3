import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/**
 * A new temporary directory for a test, inside the run's own (test/global-setup.ts), which checks at the end
 * of the run that every test removed what it made. The test removes it when done.
 */
export function testTempDir(prefix: string): string {
  return mkdtempSync(path.join(process.env.PARLEY_TEST_TMP ?? tmpdir(), `${prefix}-`));
}
