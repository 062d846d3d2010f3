import { closeSync, existsSync, openSync, readSync, writeSync } from "node:fs";
import { embeddingDimensions } from "../ai/embeddings.js";

const rowBytes = embeddingDimensions * Float32Array.BYTES_PER_ELEMENT;

/**
 * A tenant's embeddings as float32 rows in a file, row n at n × 6 kB: what the int8 graph's
 * candidates are re-scored with. Read through the operating system's page cache, they cost the
 * process no resident memory (a 100,000-chunk tenant has 600 MB of them) and a row is microseconds
 * away, where the database took tens of milliseconds for a search's candidates on PGlite.
 */
export class VectorFile {
  readonly path: string;
  readonly #fd: number;

  constructor(path: string) {
    this.path = path;
    this.#fd = openSync(path, existsSync(path) ? "r+" : "w+");
  }

  write(row: number, vector: Float32Array): void {
    writeSync(this.#fd, vector, 0, rowBytes, row * rowBytes);
  }

  /** Row `row` into `out`; false when the file ends before it. */
  read(row: number, out: Float32Array): boolean {
    return readSync(this.#fd, out, 0, rowBytes, row * rowBytes) === rowBytes;
  }

  close(): void {
    closeSync(this.#fd);
  }
}
