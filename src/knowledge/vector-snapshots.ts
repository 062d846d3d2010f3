import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { basename, join } from "node:path";
import type { Logger } from "pino";
import { embeddingDimensions } from "../ai/embeddings.js";
import { writeFileAtomically } from "../files/write-atomically.js";
import { VectorFile } from "./vector-file.js";
import { type GraphKeys, TenantVectors } from "./vector-graph.js";

/** Bumped whenever the graph's settings or this file's layout change: an older snapshot is then rebuilt. */
const format = 1;

interface Manifest extends GraphKeys {
  format: number;
  dimensions: number;
  tenantId: string;
  /** The tenant's `vector_index_versions` row when it was written: for the log, the chunk ids are what is compared. */
  version: number;
  /** The graph's own file, beside this one. */
  graph: string;
  /** The float32 rows of its keys (src/knowledge/vector-file.ts), beside this one. */
  file: string;
}

// Tenant ids are generated (src/db/ids.ts); one that is not a plain name never becomes a path.
const plainName = /^[A-Za-z0-9_-]{1,128}$/;
const fileName = (tenantId: string, extension: string) =>
  `${plainName.test(tenantId) ? tenantId : "tenant"}.${randomBytes(6).toString("hex")}.${extension}`;
const isFileOf = (tenantId: string, name: string) =>
  name.startsWith(`${tenantId}.`) && /^[0-9a-f]{12}\.(usearch|f32)$/.test(name.slice(tenantId.length + 1));

/**
 * The directory of the memory index's files: each tenant's float32 rows (a VectorFile, written as chunks
 * come), and the snapshots of its graph, so that a restarted instance loads them in a second where
 * building them again took minutes (DESIGN §5). A tenant's manifest, `<tenant>.json`, names its graph
 * file and its rows file and maps the graph's keys to chunk ids. A graph is written under a new name
 * and the manifest replaced by a rename, so that a crash leaves a whole old snapshot or a whole new
 * one. The rows file goes on growing after a snapshot: a key the snapshot holds keeps its row until its
 * chunk is removed, and a chunk removed is gone from the database too, which the loader compares the
 * snapshot's chunk ids with before using it. One instance owns the directory, as it owns DATA_DIR.
 */
export class VectorSnapshots {
  readonly #dir: string;
  readonly #logger: Logger;

  constructor(dir: string, logger: Logger) {
    this.#dir = dir;
    this.#logger = logger;
  }

  /** The tenant's last snapshot, or null when there is none that this version can use. */
  read(tenantId: string): { vectors: TenantVectors; version: number } | null {
    if (!plainName.test(tenantId)) return null;
    let manifest: Manifest;
    try {
      manifest = JSON.parse(readFileSync(this.#manifest(tenantId), "utf8")) as Manifest;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") this.#logger.warn({ err, tenantId }, "unreadable vector snapshot");
      return null;
    }
    if (
      manifest.format !== format ||
      manifest.dimensions !== embeddingDimensions ||
      manifest.tenantId !== tenantId ||
      !isFileOf(tenantId, manifest.graph) ||
      !isFileOf(tenantId, manifest.file)
    )
      return null;
    try {
      const file = new VectorFile(join(this.#dir, manifest.file));
      return { vectors: TenantVectors.load(join(this.#dir, manifest.graph), file, manifest), version: manifest.version };
    } catch (err) {
      this.#logger.warn({ err, tenantId }, "could not load a vector snapshot");
      return null;
    }
  }

  /** A new, empty rows file for the tenant. */
  newFile(tenantId: string): VectorFile {
    mkdirSync(this.#dir, { recursive: true });
    return new VectorFile(join(this.#dir, fileName(tenantId, "f32")));
  }

  write(tenantId: string, version: number, vectors: TenantVectors): void {
    if (!plainName.test(tenantId)) return;
    const graph = fileName(tenantId, "usearch");
    const file = basename(vectors.file.path);
    const keys = vectors.save(join(this.#dir, graph));
    const manifest: Manifest = { format, dimensions: embeddingDimensions, tenantId, version, graph, file, ...keys };
    writeFileAtomically(this.#manifest(tenantId), JSON.stringify(manifest));
    this.#removeFiles(tenantId, [graph, file]);
  }

  /** A tenant whose chunks are all gone keeps no snapshot: its files go, but for the rows file still in use, if any. */
  remove(tenantId: string, inUse?: VectorFile): void {
    if (!plainName.test(tenantId)) return;
    rmSync(this.#manifest(tenantId), { force: true });
    this.#removeFiles(tenantId, inUse ? [basename(inUse.path)] : []);
  }

  /** The whole directory, for an index that keeps no snapshots. */
  removeAll(): void {
    rmSync(this.#dir, { recursive: true, force: true });
  }

  #manifest(tenantId: string): string {
    return join(this.#dir, `${tenantId}.json`);
  }

  /** The tenant's files but `keep`: earlier snapshots', and rows files of builds that none refers to. */
  #removeFiles(tenantId: string, keep: string[]): void {
    let names: string[];
    try {
      names = readdirSync(this.#dir);
    } catch {
      return;
    }
    for (const name of names)
      if (!keep.includes(name) && isFileOf(tenantId, name)) rmSync(join(this.#dir, name), { force: true });
  }
}
