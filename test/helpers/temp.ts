import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach } from "vitest";

/**
 * A new temporary directory for a test, inside the run's own (test/global-setup.ts), which checks at the end
 * of the run that every test removed what it made. The test removes it when done.
 */
export function testTempDir(prefix: string): string {
  return mkdtempSync(path.join(process.env.PARLEY_TEST_TMP ?? tmpdir(), `${prefix}-`));
}

/** A new temporary directory for each test of the suite this is called in, removed after it: the current one's path. */
export function tempDirEachTest(prefix: string): () => string {
  let dir = "";
  beforeEach(() => {
    dir = testTempDir(prefix);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  return () => dir;
}
