import { closeSync, constants, fstatSync, openSync, readSync, writeSync } from "node:fs";
import { embeddingDimensions } from "../ai/embeddings.js";

const rowBytes = embeddingDimensions * Float32Array.BYTES_PER_ELEMENT;

// A search reads its candidates' rows from one tenant's file, and searches of the same tenants follow each other:
// descriptors are kept between them rather than the file opened and closed for each. Thousands of tenants must
// still not hold thousands of descriptors, so only the files read or written most recently stay open.
const maxOpenFiles = 256;
/** Open descriptors, the least recently used first. */
const descriptors = new Map<VectorFile, number>();

/**
 * A tenant's embeddings as float32 rows in a file, row n at n × 6 kB: what the int8 graph's
 * candidates are re-scored with. Read through the operating system's page cache, they cost the
 * process no resident memory (a 100,000-chunk tenant has 600 MB of them) and a row is microseconds
 * away, where the database took tens of milliseconds for a search's candidates on PGlite. The file is
 * made by the first write, so that a tenant without chunks leaves none.
 */
export class VectorFile {
  readonly path: string;

  constructor(path: string) {
    this.path = path;
  }

  /** `vectors` holds rows.length embeddings back to back. */
  write(rows: ArrayLike<number>, vectors: Float32Array): void {
    const fd = this.#descriptor(true)!;
    for (let i = 0; i < rows.length; i++) writeSync(fd, vectors, i * rowBytes, rowBytes, rows[i]! * rowBytes);
  }

  /** Each of `rows` that the file holds, in turn, in `visit`'s reused buffer. */
  read(rows: number[], visit: (index: number, vector: Float32Array) => void): void {
    const fd = this.#descriptor(false);
    if (fd === null) return;
    const vector = new Float32Array(embeddingDimensions);
    for (const [index, row] of rows.entries()) {
      if (readSync(fd, vector, 0, rowBytes, row * rowBytes) === rowBytes) visit(index, vector);
    }
  }

  /** Lets the descriptor go; a later read or write opens the file again. */
  close(): void {
    const fd = descriptors.get(this);
    if (fd === undefined) return;
    descriptors.delete(this);
    closeSync(fd);
  }

  /** The descriptor of the file now at `path`; null when there is none and `create` is false. */
  #descriptor(create: boolean): number | null {
    const kept = descriptors.get(this);
    if (kept !== undefined) {
      descriptors.delete(this);
      // A file removed (its tenant's chunks all gone) or replaced by a rename has no name left: the descriptor
      // would read, and write, a file that `path` no longer names. fstat checks that without looking the path up.
      if (fstatSync(kept).nlink > 0) {
        descriptors.set(this, kept);
        return kept;
      }
      closeSync(kept);
    }
    let fd: number;
    try {
      fd = openSync(this.path, constants.O_RDWR | (create ? constants.O_CREAT : 0));
    } catch (err) {
      if (!create && (err as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw err;
    }
    descriptors.set(this, fd);
    if (descriptors.size > maxOpenFiles) descriptors.keys().next().value!.close();
    return fd;
  }
}
