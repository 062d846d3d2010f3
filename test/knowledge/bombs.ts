import { constants, deflateRawSync, gzipSync } from "node:zlib";
import { PDFDict, PDFDocument, PDFName, PDFRawStream, StandardFonts } from "pdf-lib";

const mib = 1024 * 1024;

/**
 * A zlib stream that inflates to `size` MiB of zero bytes, about a thousandth of that compressed: one
 * deflated MiB, flushed to a byte boundary, repeated. Built without ever holding the zeros.
 */
export function zlibZeros(size: number): Buffer {
  const block = deflateRawSync(Buffer.alloc(mib), { level: 9, finishFlush: constants.Z_FULL_FLUSH });
  const last = deflateRawSync(Buffer.alloc(0));
  // Adler-32 of n zero bytes: a stays 1, b adds it n times.
  const adler = Buffer.alloc(4);
  adler.writeUInt32BE((((size * mib) % 65521) * 65536 + 1) >>> 0);
  return Buffer.concat([Buffer.from([0x78, 0xda]), ...Array<Buffer>(size).fill(block), last, adler]);
}

/**
 * A one-page PDF with real text whose page also draws a content stream that inflates to `size` MiB. With
 * `hideFilter`, the stream names its filter through an indirect object, which the file keeps in a compressed
 * object stream: no scan of the file's bytes sees that the stream is deflated.
 */
export async function flateBombPdf(size: number, { hideFilter = false } = {}): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage();
  page.drawText("Overdraft fees are 5 pounds a month.", {
    x: 50,
    y: 700,
    size: 12,
    font: await doc.embedFont(StandardFonts.Helvetica),
  });
  const data = zlibZeros(size);
  const filter = hideFilter ? doc.context.register(PDFName.of("FlateDecode")) : PDFName.of("FlateDecode");
  const bomb = PDFRawStream.of(doc.context.obj({ Filter: filter, Length: data.length }), data);
  page.node.addContentStream(doc.context.register(bomb));
  return doc.save();
}

/**
 * A small PDF that is slow to read: `pages` pages that all draw one shared content stream of many path
 * operators, which pdf.js parses again for each page. Little text, little memory, much time.
 */
export async function slowPdf(pages: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const operators = Buffer.from("0 0 m 100 100 l S\n".repeat(40_000));
  const shared = doc.context.register(doc.context.flateStream(operators));
  for (let i = 0; i < pages; i++) doc.addPage().node.addContentStream(shared);
  return doc.save();
}

/** An HTML page of `size` MiB once gunzipped, sent gzip-encoded in about a thousandth of that. */
export function gzipHtmlBomb(size: number): Buffer {
  return gzipSync(Buffer.concat([Buffer.from("<!doctype html><html><body><p>"), Buffer.alloc(size * mib, " ")]), { level: 9 });
}

/**
 * A PDF whose text and title hold characters PostgreSQL cannot store, as broken producers make them: its
 * font maps "Q" to U+0000 (a ToUnicode CMap) and "Z" to a lone low surrogate (a `uniDC00` glyph name), and
 * its title has a NUL. The page reads "Transfer fees: Q 2 EUR, Z per transfer."
 */
export async function unstorableTextPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage().drawText("Transfer fees: Q 2 EUR, Z per transfer.", { x: 50, y: 700, size: 12, font });
  await font.embed();
  const toUnicode = [
    "/CIDInit /ProcSet findresource begin 12 dict begin begincmap",
    "/CMapName /Broken def /CMapType 2 def",
    "1 begincodespacerange <00> <FF> endcodespacerange",
    "1 beginbfchar <51> <0000> endbfchar",
    "endcmap CMapName currentdict /CMap defineresource pop end end",
  ].join("\n");
  const fontDict = doc.context.lookup(font.ref, PDFDict);
  fontDict.set(PDFName.of("ToUnicode"), doc.context.register(doc.context.flateStream(toUnicode)));
  fontDict.set(
    PDFName.of("Encoding"),
    doc.context.obj({ Type: "Encoding", BaseEncoding: "WinAnsiEncoding", Differences: [90, PDFName.of("uniDC00")] }),
  );
  doc.setTitle("Fee\u0000 guide");
  return doc.save();
}

/**
 * A baseline greyscale JPEG of `width` × `height` pixels, all one grey: each 8×8 block is coded in two bits (a
 * DC difference of 0, then end of block), so the file is about 1/256 of the pixels it decodes to.
 */
export function greyJpeg(width: number, height: number): Uint8Array {
  const singleCodeTable = (tableClass: number) => [0xff, 0xc4, 0x00, 0x14, tableClass, 1, ...Array<number>(16).fill(0)];
  const blocks = Math.ceil(width / 8) * Math.ceil(height / 8);
  return new Uint8Array([
    ...[0xff, 0xd8],
    ...[0xff, 0xdb, 0x00, 0x43, 0x00, ...Array<number>(64).fill(1)],
    ...[0xff, 0xc0, 0x00, 0x0b, 0x08, height >> 8, height & 255, width >> 8, width & 255, 0x01, 0x01, 0x11, 0x00],
    ...singleCodeTable(0x00),
    ...singleCodeTable(0x10),
    ...[0xff, 0xda, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3f, 0x00],
    ...new Uint8Array(Math.ceil((blocks * 2) / 8)),
    ...[0xff, 0xd9],
  ]);
}

/**
 * A one-page PDF with real text that also draws a `width` × `height` JPEG: as an image, which reading the
 * text never decodes, or as a form XObject, which it decodes as content: a hostile file's way to make the
 * reader decode an image far larger than the file.
 */
export async function jpegPdf(width: number, height: number, as: "image" | "form"): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage();
  page.drawText("Card replacement is free once a year.", {
    x: 50,
    y: 700,
    size: 12,
    font: await doc.embedFont(StandardFonts.Helvetica),
  });
  const jpeg = greyJpeg(width, height);
  const kind =
    as === "image"
      ? { Subtype: "Image", Width: width, Height: height, ColorSpace: "DeviceGray", BitsPerComponent: 8 }
      : { Subtype: "Form", BBox: [0, 0, 100, 100] };
  const xObject = PDFRawStream.of(doc.context.obj({ Type: "XObject", ...kind, Filter: "DCTDecode", Length: jpeg.length }), jpeg);
  page.node.setXObject(PDFName.of("X1"), doc.context.register(xObject));
  page.node.addContentStream(doc.context.register(doc.context.flateStream("q 100 0 0 100 50 400 cm /X1 Do Q")));
  return doc.save();
}
