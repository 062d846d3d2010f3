import { randomUUID } from "node:crypto";
import { vi } from "vitest";

// Waits by condition get as long as a slow, loaded 2-core machine needs: vi.waitFor's own default is one second.
// A wait that names its timeout keeps it. (expect.poll's default is set in vitest.config.ts.)
// Files share a worker's modules (vitest.config.ts): vitest's own waitFor is wrapped once, not once per file.
const own = Symbol.for("parley.waitFor");
const waitFor: typeof vi.waitFor = (vi.waitFor as { [own]?: typeof vi.waitFor })[own] ?? vi.waitFor;
vi.waitFor = Object.assign(
  ((callback, options) =>
    waitFor(callback, typeof options === "number" ? options : { timeout: 30_000, ...options })) as typeof vi.waitFor,
  { [own]: waitFor },
);

// Runs before each test file, in the worker that runs it: the file's Redis keys and channels (test/helpers/app.ts).
process.env.PARLEY_TEST_REDIS_PREFIX = `parley-test:${randomUUID()}:`;
