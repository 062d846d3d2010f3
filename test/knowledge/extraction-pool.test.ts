import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { ExtractionError, type ExtractionLimits } from "../../src/knowledge/extract.js";
import { DocumentReader, type DocumentReaderSettings } from "../../src/knowledge/extraction-pool.js";
import { flateBombPdf, slowPdf } from "./bombs.js";
import { pdfWithPages } from "./knowledge-api.js";

const limits: ExtractionLimits = { maxChars: 5_000_000, maxPages: 2_000, maxDecompressedBytes: 64 * 1024 * 1024 };
const readers: DocumentReader[] = [];
afterAll(() => Promise.all(readers.map((reader) => reader.close())));

function reader(settings: Partial<DocumentReaderSettings> = {}, caps: Partial<ExtractionLimits> = {}): DocumentReader {
  const created = new DocumentReader({
    threads: 1,
    timeoutMs: 60_000,
    maxHeapMb: 512,
    ...settings,
    limits: { ...limits, ...caps },
  });
  readers.push(created);
  return created;
}

const article = `<html><head><title>Fees</title></head><body><main><h1>Fees</h1><p>Overdraft fees are 5 pounds a month.</p></main></body></html>`;

describe("reading untrusted documents in worker threads", () => {
  it("reads a web page and a PDF as extraction does, off the event loop", async () => {
    const documents = reader();
    expect(await documents.html(article, "https://bank.example/fees")).toMatchObject({
      title: "Fees",
      text: expect.stringContaining("Overdraft fees are 5 pounds a month."),
    });
    expect(await documents.pdf(await pdfWithPages(["Savings pay 4 percent.", "Loans cost 7 percent."]))).toEqual({
      title: null,
      pages: [
        { page: 1, text: "Savings pay 4 percent." },
        { page: 2, text: "Loans cost 7 percent." },
      ],
    });
  });

  it("refuses a PDF whose streams decompress past the cap (a 1 GiB deflate bomb) before pdf.js decodes them", async () => {
    const bomb = await flateBombPdf(1024);
    expect(bomb.length).toBeLessThan(2 * 1024 * 1024);
    const refused = reader().pdf(bomb);
    await expect(refused).rejects.toThrow(ExtractionError);
    await expect(refused).rejects.toThrow(
      "The PDF decompresses to more than 64 MiB, the most this service reads; it may be a decompression bomb.",
    );
  });

  it("refuses a PDF with more pages than the cap, and one with more text", async () => {
    const documents = reader({}, { maxPages: 2, maxChars: 30 });
    await expect(documents.pdf(await pdfWithPages(["one", "two", "three"]))).rejects.toThrow(
      "The PDF has 3 pages; this service reads at most 2.",
    );
    await expect(documents.pdf(await pdfWithPages(["Twenty characters...", "and twenty more....."]))).rejects.toThrow(
      "The document has more than 30 characters of text, the most this service reads.",
    );
    await expect(documents.html(article, "https://bank.example/fees")).rejects.toThrow(/more than 30 characters/);
  });

  it("abandons a document still being read when its time is up, and reads the next one in a fresh thread", async () => {
    const documents = reader({ timeoutMs: 500 });
    await expect(documents.pdf(await slowPdf(1_500))).rejects.toThrow(
      "Reading the document took longer than 0.5 s, the most this service allows.",
    );
    expect((await documents.html(article, "https://bank.example/fees")).title).toBe("Fees");
  });

  it("fails a document that needs more heap than a thread may have, and keeps reading others", async () => {
    const documents = reader({ maxHeapMb: 64 });
    const huge = `<html><body>${"<div><span>Fee</span></div>".repeat(400_000)}</body></html>`;
    await expect(documents.html(huge, "https://bank.example/huge")).rejects.toThrow(
      "Reading the document needed more than 64 MiB of memory, the most this service allows.",
    );
    expect((await documents.html(article, "https://bank.example/fees")).title).toBe("Fees");
  });

  it("runs under `node --import tsx`, as the service does, where worker threads do not inherit the loader", async () => {
    const script = `
      import { DocumentReader } from "./src/knowledge/extraction-pool.ts";
      const reader = new DocumentReader({ threads: 1, timeoutMs: 60000, maxHeapMb: 256, limits: { maxChars: 1000, maxPages: 10, maxDecompressedBytes: 1048576 } });
      const page = await reader.html(${JSON.stringify(article)}, "https://bank.example/fees");
      await reader.close();
      console.log(page.title);`;
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script]);
    expect(stdout.trim()).toBe("Fees");
  });
});
