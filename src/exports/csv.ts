// RFC 4180 CSV, safe to open in a spreadsheet.

// A cell a spreadsheet would read as a formula (=, +, -, @, and the tab and carriage return that some treat the
// same way) gets a leading apostrophe: a customer who writes "=HYPERLINK(…)" must not run code on a banker's desk.
const formulaStart = /^[=+\-@\t\r]/;
const needsQuotes = /[",\r\n]/;

/** One cell: text as is (formula-safe), numbers and booleans written plainly, null and undefined empty. */
export function csvCell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return "";
  if (typeof value !== "string") return String(value);
  const safe = formulaStart.test(value) ? `'${value}` : value;
  return needsQuotes.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** One record, CRLF-terminated as RFC 4180 says. */
export function csvRow(values: ReadonlyArray<string | number | boolean | null | undefined>): string {
  return `${values.map(csvCell).join(",")}\r\n`;
}
