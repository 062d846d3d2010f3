import { vi } from "vitest";

// Waits by condition get as long as a slow, loaded 2-core machine needs: vi.waitFor's own default is one second.
// A wait that names its timeout keeps it. (expect.poll's default is set in vitest.config.ts.)
const waitFor = vi.waitFor;
vi.waitFor = ((callback, options) =>
  waitFor(callback, typeof options === "number" ? options : { timeout: 30_000, ...options })) as typeof vi.waitFor;
