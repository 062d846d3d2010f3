// Worker threads do not inherit the main thread's `--import tsx`: this plain-JS entry registers the
// TypeScript loader in the thread, then loads the TypeScript entry it was given.
import { workerData } from "node:worker_threads";
import { register } from "tsx/esm/api";

register();
await import(workerData.entry);
