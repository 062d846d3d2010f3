import { parentPort } from "node:worker_threads";
import { storableValue } from "../http/storable-text.js";
import { allocationMeter } from "./allocation-meter.js";
import { decompressionBomb, ExtractionError, type ExtractionLimits, extractHtml, extractPdf, extractSitemap } from "./extract.js";

/** One document to read, as the pool sends it to a thread. */
export type ExtractionTask =
  | { kind: "html"; html: string; url: string; limits: ExtractionLimits }
  | { kind: "pdf"; bytes: Uint8Array; limits: ExtractionLimits }
  | { kind: "sitemap"; xml: string };

/** A thread's answer: the extracted document, or why it could not be read. */
export type ExtractionOutcome = { ok: true; value: unknown } | { ok: false; message: string; extraction: boolean };

/**
 * A PDF read with its buffers counted, page by page: a stream whose filter decodes beyond the cap (an image
 * codec on a content stream or form) is refused at the allocation. pdf.js may catch that refusal and read
 * on without the stream; the PDF fails all the same.
 */
async function readPdf(bytes: Uint8Array, limits: ExtractionLimits): Promise<unknown> {
  const meter = allocationMeter();
  meter.start(limits.maxDecompressedBytes);
  const outcome = await extractPdf(bytes, limits, () => meter.restart()).then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (meter.stop()) throw decompressionBomb(limits);
  if ("error" in outcome) throw outcome.error;
  return outcome.value;
}

async function read(task: ExtractionTask): Promise<unknown> {
  switch (task.kind) {
    case "html":
      return extractHtml(task.html, task.url, task.limits);
    case "pdf":
      return readPdf(task.bytes, task.limits);
    case "sitemap":
      return extractSitemap(task.xml);
  }
}

parentPort!.on("message", async (task: ExtractionTask) => {
  let outcome: ExtractionOutcome;
  try {
    // A document's text may hold what PostgreSQL cannot store (NUL, lone surrogates from a broken font map):
    // cleaned here, the one way out of every reader, as a provider's payload is.
    outcome = { ok: true, value: storableValue(await read(task)) };
  } catch (error) {
    outcome = { ok: false, message: (error as Error).message, extraction: error instanceof ExtractionError };
  }
  parentPort!.postMessage(outcome);
});
parentPort!.postMessage("ready");
