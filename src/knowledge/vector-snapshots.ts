import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "pino";
import { embeddingDimensions } from "../ai/embeddings.js";
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
}

// Tenant ids are generated (src/db/ids.ts); one that is not a plain name never becomes a path.
const plainName = /^[A-Za-z0-9_-]{1,128}$/;
const graphName = (tenantId: string) => `${tenantId}.${randomBytes(6).toString("hex")}.usearch`;
const isGraphOf = (tenantId: string, name: string) =>
  name.startsWith(`${tenantId}.`) && /^[0-9a-f]{12}\.usearch$/.test(name.slice(tenantId.length + 1));

/**
 * Tenants' vector graphs saved in DATA_DIR, so that a restarted instance loads them in a second where
 * building them again took minutes (DESIGN §5). Each tenant has a manifest, `<tenant>.json`, naming its
 * graph file and mapping the graph's keys to chunk ids. A graph is written under a new name and the
 * manifest replaced by a rename, so that a reader (another instance on the same directory included)
 * sees a whole old snapshot or a whole new one. A snapshot is only a head start: the loader compares
 * its chunk ids with the database's before it is used.
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
      !isGraphOf(tenantId, manifest.graph)
    )
      return null;
    try {
      return { vectors: TenantVectors.load(join(this.#dir, manifest.graph), manifest), version: manifest.version };
    } catch (err) {
      // Another instance may have replaced the snapshot and removed this graph since the manifest was read.
      this.#logger.warn({ err, tenantId }, "could not load a vector snapshot");
      return null;
    }
  }

  write(tenantId: string, version: number, vectors: TenantVectors): void {
    if (!plainName.test(tenantId)) return;
    mkdirSync(this.#dir, { recursive: true });
    const graph = graphName(tenantId);
    const keys = vectors.save(join(this.#dir, graph));
    const manifest: Manifest = { format, dimensions: embeddingDimensions, tenantId, version, graph, ...keys };
    const temporary = `${this.#manifest(tenantId)}.${randomBytes(6).toString("hex")}.tmp`;
    writeFileSync(temporary, JSON.stringify(manifest));
    renameSync(temporary, this.#manifest(tenantId));
    this.#removeGraphs(tenantId, graph);
  }

  /** A tenant whose chunks are all gone keeps no snapshot. */
  remove(tenantId: string): void {
    if (!plainName.test(tenantId)) return;
    rmSync(this.#manifest(tenantId), { force: true });
    this.#removeGraphs(tenantId, null);
  }

  #manifest(tenantId: string): string {
    return join(this.#dir, `${tenantId}.json`);
  }

  /** The tenant's graph files but `keep`: earlier snapshots' (one being read elsewhere just fails to load and is rebuilt). */
  #removeGraphs(tenantId: string, keep: string | null): void {
    let names: string[];
    try {
      names = readdirSync(this.#dir);
    } catch {
      return;
    }
    for (const name of names) if (name !== keep && isGraphOf(tenantId, name)) rmSync(join(this.#dir, name), { force: true });
  }
}
