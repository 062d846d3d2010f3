import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { writeFileAtomically } from "../files/write-atomically.js";

/**
 * A new embedded database starts as a copy of one PGlite initialised before, kept in the project's own
 * `node_modules/.cache/parley/`. PGlite initialises a data directory by running PostgreSQL's initdb in WebAssembly: 3.4 s
 * on a quiet machine, 11.8 s on a loaded one, paid by `npm start` on an empty DATA_DIR and again by every process a
 * test starts on an empty directory. Loading a copy takes 1.3 s. The copy is what initdb left, before any
 * migration, so it never goes stale with the schema; it is named by the PGlite and pgvector versions that made it.
 * It lives beside the installed code, never in a shared temporary directory: a database another local user could
 * put there would be a planted tenant or key.
 */

const require = createRequire(import.meta.url);

/** The version in the package.json of an installed package, found from its entry point. */
function versionOf(name: string): string {
  for (let dir = dirname(require.resolve(name)); dir !== dirname(dir); dir = dirname(dir)) {
    const file = join(dir, "package.json");
    if (!existsSync(file)) continue;
    const manifest = JSON.parse(readFileSync(file, "utf8")) as { name?: string; version?: string };
    if (manifest.name === name) return manifest.version ?? "unknown";
  }
  return "unknown";
}

const cacheDir = fileURLToPath(new URL("../../node_modules/.cache/parley/", import.meta.url));

function initialisedCopyPath(): string {
  return join(
    cacheDir,
    `pglite-${versionOf("@electric-sql/pglite")}-pgvector-${versionOf("@electric-sql/pglite-pgvector")}.tar.gz`,
  );
}

/** Whether `dir` holds nothing yet: a database created there would be initialised. */
function isNewDirectory(dir: string): boolean {
  if (dir.startsWith("memory://")) return true;
  try {
    return readdirSync(dir).length === 0;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return true;
    throw err;
  }
}

/** What a failed start left in a directory that was new. */
function emptyDirectory(dir: string): void {
  if (dir.startsWith("memory://") || !existsSync(dir)) return;
  for (const name of readdirSync(dir)) rmSync(join(dir, name), { recursive: true, force: true });
}

/**
 * Keeps a copy of `lite`, which initdb has just made and nothing has written to yet. Written atomically, so that
 * processes starting together never read half a copy. A cache: when it cannot be written (a read-only installation),
 * databases are initialised as before.
 */
async function keepCopy(lite: PGlite, path: string): Promise<void> {
  try {
    const copy = Buffer.from(await (await lite.dumpDataDir("gzip")).arrayBuffer());
    mkdirSync(dirname(path), { recursive: true });
    writeFileAtomically(path, copy);
  } catch {
    // Only the next new database's start is slower.
  }
}

/**
 * A data directory's tarball as PGlite's `loadDataDir` takes it, a Blob, that hands PGlite the bytes themselves. PGlite
 * reads only the Blob's `arrayBuffer()` (and its type) and does not change the bytes; a Blob made from them copies them
 * in and reads them back in chunks: 0.4-0.7 s of loading the test suite's 43 MB migrated dump (1.7 s in all).
 */
class TarballBlob extends Blob {
  readonly #bytes: Uint8Array;

  constructor(bytes: Uint8Array) {
    // A gzip stream starts 1f 8b; PGlite unpacks it when the type says so.
    super([], { type: bytes[0] === 0x1f && bytes[1] === 0x8b ? "application/x-gzip" : "application/x-tar" });
    this.#bytes = bytes;
  }

  override get size(): number {
    return this.#bytes.byteLength;
  }

  override arrayBuffer(): Promise<ArrayBuffer> {
    const { buffer, byteOffset, byteLength } = this.#bytes;
    const whole = byteOffset === 0 && byteLength === buffer.byteLength && buffer instanceof ArrayBuffer;
    return Promise.resolve(whole ? buffer : (buffer.slice(byteOffset, byteOffset + byteLength) as ArrayBuffer));
  }
}

/** The copy at `path`, if there is one to read. */
function readCopy(path: string): Uint8Array | undefined {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

/**
 * The database in `dir` (a directory, or `memory://`), with pgvector. A new one starts from `seed` when given (a dump
 * of a data directory), else from the copy of an initialised one at `copyAt` (by default the cache's), made by the
 * first that had none. A copy that cannot be loaded is removed, and the database initialised.
 */
export async function createPGlite(dir: string, seed?: Uint8Array, copyAt?: string): Promise<PGlite> {
  const create = (tarball?: Uint8Array) =>
    PGlite.create(dir, { extensions: { vector }, loadDataDir: tarball && new TarballBlob(tarball) });
  if (seed) return create(seed);
  if (!isNewDirectory(dir)) return create();
  // Named only here: finding the packages' versions reads their manifests, which a database opened otherwise never needs.
  const copyPath = copyAt ?? initialisedCopyPath();
  const copy = readCopy(copyPath);
  if (copy) {
    try {
      return await create(copy);
    } catch {
      rmSync(copyPath, { force: true });
      emptyDirectory(dir);
    }
  }
  const initialised = await create();
  await keepCopy(initialised, copyPath);
  return initialised;
}
