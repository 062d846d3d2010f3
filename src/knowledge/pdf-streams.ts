import { createInflate, constants as zlib } from "node:zlib";

/**
 * How far one encoded byte can expand: deflate's limit, LZW with 12-bit codes (a 4,096-byte string per
 * 9-bit code at best) and run-length (two bytes for 128). Other filters shrink, or decode images, which
 * text extraction does not.
 */
const worstExpansion: Record<string, number> = {
  FlateDecode: 1032,
  Fl: 1032,
  LZWDecode: 3641,
  LZW: 3641,
  RunLengthDecode: 64,
  RL: 64,
};
const filterName =
  /\/(FlateDecode|Fl|LZWDecode|LZW|RunLengthDecode|RL|ASCIIHexDecode|AHx|ASCII85Decode|A85|CCITTFaxDecode|CCF|DCTDecode|DCT|JBIG2Decode|JPXDecode|Crypt)(?=[\s/<>[\]()]|$)/g;

interface EncodedStream {
  /** Every filter named between the previous stream and this one: its dictionary's, and perhaps others'. */
  filters: Set<string>;
  data: Uint8Array;
}

/**
 * The streams of a PDF file. Read from the bytes, not through a PDF parser, so that no trick of the
 * file's structure hides one: each `stream` keyword starts one, up to `endstream`. Its filters are all
 * the filter names since the previous stream, a superset of its dictionary's, which errs on the safe side.
 */
function* encodedStreams(bytes: Uint8Array): Generator<EncodedStream> {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
  const keyword = /stream\r?\n/g;
  let previousEnd = 0;
  for (let match = keyword.exec(text); match; match = keyword.exec(text)) {
    if (text.slice(match.index - 3, match.index) === "end") continue;
    const filters = new Set(Array.from(text.slice(previousEnd, match.index).matchAll(filterName), (name) => name[1]!));
    const start = match.index + match[0].length;
    const end = text.indexOf("endstream", start);
    yield { filters, data: bytes.subarray(start, end === -1 ? bytes.length : end) };
    if (end === -1) return;
    keyword.lastIndex = previousEnd = end;
  }
}

/** Bytes a zlib stream inflates to, counting no further than `limit`; null if it does not inflate at all. */
function inflatedSize(data: Uint8Array, limit: number): Promise<number | null> {
  return new Promise((resolve) => {
    // Large output chunks: fewer round trips through the event loop while a bomb is measured.
    const inflate = createInflate({ finishFlush: zlib.Z_SYNC_FLUSH, chunkSize: 1024 * 1024 });
    let size = 0;
    inflate.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) inflate.destroy();
    });
    // A damaged stream counts what it gave; pdf.js reads no further either.
    inflate.on("error", () => resolve(size > 0 ? size : null));
    inflate.on("close", () => resolve(size));
    inflate.end(data);
  });
}

/**
 * An upper bound on the bytes a PDF's streams decode to, counting no further than `limit`. Streams
 * filtered with deflate alone (almost all) are inflated and measured; the others, and deflate streams that
 * do not inflate as they are (encrypted, or behind another filter), count at their worst expansion.
 */
export async function decodedSize(bytes: Uint8Array, limit: number): Promise<number> {
  let total = 0;
  for (const { filters, data } of encodedStreams(bytes)) {
    const deflateOnly = filters.size > 0 && [...filters].every((filter) => filter === "FlateDecode" || filter === "Fl");
    const measured = deflateOnly ? await inflatedSize(data, limit - total) : null;
    total += measured ?? data.length * [...filters].reduce((product, filter) => product * (worstExpansion[filter] ?? 1), 1);
    if (total > limit) return total;
  }
  return total;
}
