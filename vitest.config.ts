import { createRequire } from "node:module";
import { defineConfig } from "vitest/config";

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: {
    // Node loads graphql 16 as CommonJS for the libraries; without this, Vite would give our own
    // modules its .mjs build and the schema would come from "another realm".
    alias: [{ find: /^graphql$/, replacement: require.resolve("graphql") }],
  },
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["node_modules/**"],
    setupFiles: ["test/setup.ts"],
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 30_000,
    // Conditions polled for get as long as a slow, loaded 2-core machine needs (the default is one second).
    expect: { poll: { timeout: 30_000 } },
    // A file's setup starts a service on a database of its own (migrations included): on a loaded 2-core machine,
    // with other files doing the same, that has taken more than a minute.
    hookTimeout: 120_000,
    pool: "forks",
    // A worker runs its files one after another in one module cache: the service's modules and what they learn once
    // per process (the lexicon, the default intents, the sentence encoder) are loaded once per worker, not once per
    // file, which took a third of the suite's time. Every file still opens its own service on its own database.
    isolate: false,
    // Two cores: each file opens its own database; more workers only queue on the CPU.
    maxWorkers: 2,
  },
});
