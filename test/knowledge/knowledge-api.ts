import { PDFDocument, StandardFonts } from "pdf-lib";
import { expect } from "vitest";
import type { TestApp } from "../helpers/app.js";

/** The REST record of a source once its sync has ended (ready or failed). */
export async function waitForSource(app: TestApp, id: string, key: string, timeout = 60_000) {
  let source: any;
  await expect
    .poll(
      async () => {
        const list = await app.request("/api/knowledge/sources", { key });
        source = list.body.sources.find((s: { id: string }) => s.id === id);
        return source?.status;
      },
      { timeout, interval: 100 },
    )
    .toMatch(/ready|failed/);
  return source;
}

/** A PDF with one page per text, each with a text layer. */
export async function pdfWithPages(pages: string[]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const text of pages) doc.addPage().drawText(text, { x: 50, y: 700, size: 12, font });
  return doc.save();
}

/** A PDF as a scanner makes it: something drawn on each page, and no text layer. */
export async function scannedPdf(pageCount: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  for (let i = 0; i < pageCount; i++) doc.addPage().drawRectangle({ x: 50, y: 500, width: 400, height: 200 });
  return doc.save();
}

export function pdfForm(bytes: Uint8Array, fileName: string): FormData {
  const form = new FormData();
  form.set("file", new Blob([Buffer.from(bytes)], { type: "application/pdf" }), fileName);
  return form;
}
