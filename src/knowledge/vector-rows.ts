import { embeddingDimensions } from "../ai/embeddings.js";
import type { Database } from "../db/client.js";

/** Rows read per query: a page of 2,000 embeddings is 12 MB in PostgreSQL's binary form. */
const pageSize = 2_000;

/**
 * A chunk's embedding into `out` at `offset`; false when it is not a 1536-d vector without nulls.
 * From PostgreSQL it comes as the binary `array_send` output: a fifth of the bytes of the text form,
 * and no number parsing, which otherwise dominates loading 100,000 embeddings. PGlite is the
 * other way round (bytea crosses its boundary as hex): there the parsed array is quicker.
 */
function decodeEmbedding(embedding: Uint8Array | number[], out: Float32Array, offset: number): boolean {
  if (Array.isArray(embedding)) {
    if (embedding.length !== embeddingDimensions || embedding.some((x) => x === null)) return false;
    out.set(embedding, offset);
    return true;
  }
  const view = new DataView(embedding.buffer, embedding.byteOffset, embedding.byteLength);
  if (view.getInt32(0) !== 1 || view.getInt32(12) !== embeddingDimensions) return false;
  for (let i = 0, p = 20; i < embeddingDimensions; i++, p += 8) {
    if (view.getInt32(p) !== 4) return false;
    out[offset + i] = view.getFloat32(p + 4);
  }
  return true;
}

export interface Rows {
  ids: string[];
  /** ids.length embeddings back to back. */
  vectors: Float32Array;
  /** Rows whose embedding is not a 1536-d vector. */
  skipped: number;
}

/** A page of at most `pageSize` of the chunks `where` selects, in id order. */
async function readRows(db: Database, where: string, params: unknown[]): Promise<Rows> {
  const column = db.kind === "postgres" ? "array_send(c.embedding)" : "c.embedding";
  // The page's ids first: selected with the rows, the embedding would be read and converted for every
  // row of the tenant before the sort kept 2,000 of them (a 100,000-chunk build took four minutes).
  const rows = await db.sql.query<{ id: string; embedding: Uint8Array | number[] }>(
    `SELECT c.id, ${column} AS embedding
       FROM (SELECT id FROM chunks WHERE embedding IS NOT NULL AND ${where} ORDER BY id LIMIT ${pageSize}) page
       JOIN chunks c ON c.id = page.id
      ORDER BY c.id`,
    params,
  );
  const vectors = new Float32Array(rows.length * embeddingDimensions);
  const ids: string[] = [];
  for (const row of rows) {
    if (decodeEmbedding(row.embedding, vectors, ids.length * embeddingDimensions)) ids.push(row.id);
  }
  return {
    ids,
    vectors: vectors.subarray(0, ids.length * embeddingDimensions),
    skipped: rows.length - ids.length,
  };
}

/** The tenant's chunks among `ids` (any number of them) with their stored embeddings, a page at a time. */
export async function* chunkPages(db: Database, tenantId: string, ids: string[]): AsyncGenerator<Rows> {
  for (let i = 0; i < ids.length; i += pageSize) {
    yield await readRows(db, "tenant_id = $1 AND id = ANY($2::text[])", [tenantId, ids.slice(i, i + pageSize)]);
  }
}

/** The ids of the tenant's chunks that have an embedding: what its index should hold. */
export async function readChunkIds(db: Database, tenantId: string): Promise<string[]> {
  const rows = await db.sql.query<{ id: string }>(`SELECT id FROM chunks WHERE tenant_id = $1 AND embedding IS NOT NULL`, [
    tenantId,
  ]);
  return rows.map((r) => r.id);
}
