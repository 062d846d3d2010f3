import type { Response } from "express";
import { AppError } from "../errors.js";

export const exportFormats = ["json", "csv"] as const;
export type ExportFormat = (typeof exportFormats)[number];

export function exportFormatOf(value: unknown): ExportFormat {
  const format = value === undefined || value === "" ? "json" : value;
  if (!exportFormats.includes(format as ExportFormat)) {
    throw new AppError("VALIDATION", "format must be json or csv", [{ path: "format", message: "json or csv" }]);
  }
  return format as ExportFormat;
}

// A spreadsheet runs a cell that starts with one of these as a formula (CSV injection): such text is quoted with a '.
const formulaStart = /^[=+\-@\t\r]/;

function csvCell(value: unknown): string {
  if (value === null || value === undefined) return "";
  let text = typeof value === "object" ? JSON.stringify(value) : String(value);
  if (typeof value === "string" && formulaStart.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * Streams rows as a JSON array or a CSV file (RFC 4180, a header row of `columns`), waiting for the client to read
 * each piece before the next is made, so that the size of an export does not matter. The first rows are asked for
 * before anything is sent: a refused request still gets its JSON error. A failure later ends the response abruptly
 * (a JSON export is then not valid JSON: a client cannot take a cut export for a whole one).
 */
export async function streamExport(
  res: Response,
  format: ExportFormat,
  filename: string,
  columns: readonly string[],
  pages: AsyncIterator<Array<Record<string, unknown>>>,
): Promise<void> {
  let next = await pages.next();
  res.writeHead(200, {
    "content-type": format === "csv" ? "text/csv; charset=utf-8" : "application/json; charset=utf-8",
    "content-disposition": `attachment; filename="${filename}.${format}"`,
    "cache-control": "no-store",
  });
  // A client that goes away never drains: its close ends the wait too, and the loop stops on `destroyed`.
  const write = async (text: string) => {
    if (res.write(text)) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        res.off("drain", done);
        res.off("close", done);
        resolve();
      };
      res.on("drain", done);
      res.on("close", done);
    });
  };
  try {
    await write(format === "csv" ? `${columns.join(",")}\r\n` : "[");
    let first = true;
    while (!next.done) {
      for (const row of next.value) {
        if (format === "csv") await write(`${columns.map((c) => csvCell(row[c])).join(",")}\r\n`);
        else await write(`${first ? "\n" : ",\n"}${JSON.stringify(row)}`);
        first = false;
      }
      if (res.destroyed) return;
      next = await pages.next();
    }
    if (format === "json") await write("\n]\n");
    res.end();
  } catch (err) {
    res.destroy(err as Error);
  }
}
