import { parentPort } from "node:worker_threads";
import type { IsolationLevel, SqlQuery, Transaction } from "@prisma/driver-adapter-utils";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { answerRequests } from "../threads/request-thread.js";
import { threadData } from "../threads/typescript-thread.js";
import { createPGlite } from "./pglite-initialised.js";

/** What the embedded database's thread is opened with (src/db/pglite-remote.ts). */
export interface PGliteThreadData {
  dir: string;
  /** A dump of a data directory to start from (`DatabaseOptions.pgliteSeed`). */
  seed?: Uint8Array;
}

/** What the embedded database's thread is asked. `tx` names a transaction begun with `begin`. */
export type PGliteRequest =
  | { op: "open" }
  | { op: "query"; query: SqlQuery; tx?: number }
  | { op: "execute"; query: SqlQuery; tx?: number }
  | { op: "script"; script: string }
  | { op: "begin"; isolationLevel?: IsolationLevel }
  | { op: "commit"; tx: number }
  | { op: "rollback"; tx: number }
  | { op: "sql"; text: string; params?: unknown[] }
  | { op: "run"; text: string; params?: unknown[] }
  | { op: "exec"; text: string }
  | { op: "dump" }
  | { op: "close" };

// The embedded database in a thread of its own: PGlite runs each statement synchronously in WebAssembly, which on the
// serving thread held every other request (webhook acknowledgements, streams) for the statement's whole length.
// Prisma's PGlite adapter runs here beside it; the serving thread's Prisma reaches it through src/db/pglite-remote.ts.
const { dir, seed } = threadData<PGliteThreadData>();
const lite = await createPGlite(dir, seed);
const adapter = await new PrismaPGlite(lite).connect();
const transactions = new Map<number, Transaction>();
let nextTransaction = 1;

function transaction(tx: number): Transaction {
  const found = transactions.get(tx);
  if (!found) throw new Error(`Transaction ${tx} is not open in the embedded database`);
  return found;
}

async function handle(request: PGliteRequest): Promise<unknown> {
  switch (request.op) {
    case "open":
      return null;
    case "query":
      return (request.tx ? transaction(request.tx) : adapter).queryRaw(request.query);
    case "execute":
      return (request.tx ? transaction(request.tx) : adapter).executeRaw(request.query);
    case "script":
      return adapter.executeScript(request.script);
    case "begin": {
      const begun = await adapter.startTransaction(request.isolationLevel);
      const tx = nextTransaction++;
      transactions.set(tx, begun);
      return { tx, options: begun.options };
    }
    case "commit":
    case "rollback": {
      const ending = transaction(request.tx);
      transactions.delete(request.tx);
      return request.op === "commit" ? ending.commit() : ending.rollback();
    }
    case "sql":
      return (await lite.query(request.text, request.params)).rows;
    case "run":
      return (await lite.query(request.text, request.params)).affectedRows ?? 0;
    case "exec":
      await lite.exec(request.text);
      return null;
    case "dump":
      return new Uint8Array(await (await lite.dumpDataDir("none")).arrayBuffer());
    case "close":
      await lite.close();
      return null;
  }
}

answerRequests<PGliteRequest>(
  parentPort!,
  async (request) => {
    const result = await handle(request);
    return { result, transfer: result instanceof ArrayBuffer ? [result] : [] };
  },
  { concurrent: true },
);
