import { closeSync, constants, openSync, readSync, writeSync } from "node:fs";
import { embeddingDimensions } from "../ai/embeddings.js";

const rowBytes = embeddingDimensions * Float32Array.BYTES_PER_ELEMENT;

/**
 * A tenant's embeddings as float32 rows in a file, row n at n × 6 kB: what the int8 graph's
 * candidates are re-scored with. Read through the operating system's page cache, they cost the
 * process no resident memory (a 100,000-chunk tenant has 600 MB of them) and a row is microseconds
 * away, where the database took tens of milliseconds for a search's candidates on PGlite. The file is
 * opened for each batch of rows, so that thousands of tenants hold no descriptors, and made by the first write.
 */
export class VectorFile {
  readonly path: string;

  constructor(path: string) {
    this.path = path;
  }

  /** `vectors` holds rows.length embeddings back to back. */
  write(rows: ArrayLike<number>, vectors: Float32Array): void {
    const fd = openSync(this.path, constants.O_RDWR | constants.O_CREAT);
    try {
      for (let i = 0; i < rows.length; i++) writeSync(fd, vectors, i * rowBytes, rowBytes, rows[i]! * rowBytes);
    } finally {
      closeSync(fd);
    }
  }

  /** Each of `rows` that the file holds, in turn, in `visit`'s reused buffer. */
  read(rows: number[], visit: (index: number, vector: Float32Array) => void): void {
    let fd: number;
    try {
      fd = openSync(this.path, constants.O_RDONLY);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
      throw err;
    }
    try {
      const vector = new Float32Array(embeddingDimensions);
      for (const [index, row] of rows.entries()) {
        if (readSync(fd, vector, 0, rowBytes, row * rowBytes) === rowBytes) visit(index, vector);
      }
    } finally {
      closeSync(fd);
    }
  }
}
