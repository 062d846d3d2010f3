import type { DestinationStream } from "pino";

export interface CapturedLogs {
  /** For startTestApp's `logDestination`. */
  destination: DestinationStream;
  /** Every line written so far, parsed. */
  lines: Array<Record<string, any>>;
  /** Every line written so far, as written. */
  text(): string;
}

/** The service's log output, kept for a test to read. */
export function captureLogs(): CapturedLogs {
  const written: string[] = [];
  const lines: Array<Record<string, any>> = [];
  return {
    destination: {
      write(line: string) {
        written.push(line);
        lines.push(JSON.parse(line));
      },
    },
    lines,
    text: () => written.join(""),
  };
}
