import { parentPort } from "node:worker_threads";
import { ExtractionError, type ExtractionLimits, extractHtml, extractPdf } from "./extract.js";

/** One document to read, as the pool sends it to a thread. */
export type ExtractionTask =
  | { kind: "html"; html: string; url: string; limits: ExtractionLimits }
  | { kind: "pdf"; bytes: Uint8Array; limits: ExtractionLimits };

/** A thread's answer: the extracted document, or why it could not be read. */
export type ExtractionOutcome = { ok: true; value: unknown } | { ok: false; message: string; extraction: boolean };

async function read(task: ExtractionTask): Promise<unknown> {
  return task.kind === "html" ? extractHtml(task.html, task.url, task.limits) : extractPdf(task.bytes, task.limits);
}

parentPort!.on("message", async (task: ExtractionTask) => {
  let outcome: ExtractionOutcome;
  try {
    outcome = { ok: true, value: await read(task) };
  } catch (error) {
    outcome = { ok: false, message: (error as Error).message, extraction: error instanceof ExtractionError };
  }
  parentPort!.postMessage(outcome);
});
parentPort!.postMessage("ready");
