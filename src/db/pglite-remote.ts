import type {
  IsolationLevel,
  SqlDriverAdapter,
  SqlDriverAdapterFactory,
  SqlQuery,
  SqlResultSet,
  Transaction,
  TransactionOptions,
} from "@prisma/driver-adapter-utils";
import { RequestThread } from "../threads/request-thread.js";
import type { PGliteRequest, PGliteThreadData } from "./pglite-thread.js";

const adapterName = "pglite-prisma-adapter";

class RemoteQueryable {
  readonly provider = "postgres";
  readonly adapterName = adapterName;

  constructor(
    protected readonly thread: RequestThread<PGliteRequest>,
    private readonly tx?: number,
  ) {}

  queryRaw(query: SqlQuery): Promise<SqlResultSet> {
    return this.thread.ask({ op: "query", query, tx: this.tx });
  }

  executeRaw(query: SqlQuery): Promise<number> {
    return this.thread.ask({ op: "execute", query, tx: this.tx });
  }
}

class RemoteTransaction extends RemoteQueryable implements Transaction {
  constructor(
    thread: RequestThread<PGliteRequest>,
    private readonly id: number,
    readonly options: TransactionOptions,
  ) {
    super(thread, id);
  }

  commit(): Promise<void> {
    return this.thread.ask({ op: "commit", tx: this.id });
  }

  rollback(): Promise<void> {
    return this.thread.ask({ op: "rollback", tx: this.id });
  }
}

class RemoteAdapter extends RemoteQueryable implements SqlDriverAdapter {
  executeScript(script: string): Promise<void> {
    return this.thread.ask({ op: "script", script });
  }

  async startTransaction(isolationLevel?: IsolationLevel): Promise<Transaction> {
    const { tx, options } = await this.thread.ask<{ tx: number; options: TransactionOptions }>({ op: "begin", isolationLevel });
    return new RemoteTransaction(this.thread, tx, options);
  }

  getConnectionInfo() {
    return { supportsRelationJoins: true };
  }

  async dispose(): Promise<void> {}
}

/** The embedded database, open in a thread of its own (src/db/pglite-thread.ts). */
export interface PGliteRemote {
  /** Prisma's driver adapter, whose statements run in the database's thread. */
  adapter: SqlDriverAdapterFactory;
  query<T>(text: string, params?: unknown[]): Promise<T[]>;
  run(text: string, params?: unknown[]): Promise<number>;
  exec(text: string): Promise<void>;
  dump(): Promise<Uint8Array>;
  close(): Promise<void>;
}

/** Opens the PGlite database in `dir` (or starts it from `seed`) in a thread, once it is open. */
export async function openPGliteThread(dir: string, seed: Uint8Array | undefined): Promise<PGliteRemote> {
  const data: PGliteThreadData = { dir, seed };
  const thread = new RequestThread<PGliteRequest>(new URL("./pglite-thread.ts", import.meta.url), "embedded-database", {
    data,
    restart: false,
  });
  await thread.ask({ op: "open" }).catch(async (err) => {
    await thread.close();
    throw err;
  });
  return {
    adapter: {
      provider: "postgres",
      adapterName,
      connect: async () => new RemoteAdapter(thread),
    },
    query: (text, params) => thread.ask({ op: "sql", text, params }),
    run: (text, params) => thread.ask({ op: "run", text, params }),
    exec: (text) => thread.ask({ op: "exec", text }),
    dump: () => thread.ask<Uint8Array>({ op: "dump" }),
    async close() {
      try {
        await thread.ask({ op: "close" });
      } finally {
        await thread.close();
      }
    },
  };
}
