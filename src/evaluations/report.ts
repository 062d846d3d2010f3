import type { RunComparison } from "./compare.js";
import type { CaseResult, EvaluationRunRow } from "./run.js";

/** What the CLI prints of a run, whether it came from the REST API or from the database. */
export interface RunReport {
  id: string;
  status: string;
  error: string | null;
  cases: number;
  passed: number;
  accuracy: number | null;
  declineRate: number | null;
  previous: Pick<RunComparison, "accuracyDelta"> & { newlyFailing: number; newlyPassing: number };
  results: Array<Pick<CaseResult, "passed" | "expect" | "question" | "reason">>;
}

export function reportOf(run: EvaluationRunRow, previous: RunComparison | null): RunReport {
  return {
    ...run,
    previous: previous
      ? { ...previous, newlyFailing: previous.newlyFailing.length, newlyPassing: previous.newlyPassing.length }
      : { accuracyDelta: null, newlyFailing: 0, newlyPassing: 0 },
    results: run.results as unknown as CaseResult[],
  };
}

const percent = (value: number | null) => (value === null ? "n/a" : `${(value * 100).toFixed(1)}%`);
const clipped = (text: string, width: number) => (text.length > width ? `${text.slice(0, width - 1)}…` : text.padEnd(width));

/** Per case PASS/FAIL with why, then accuracy against the minimum, decline rate and the change from the previous run. */
export function formatReport(report: RunReport, min: number): string {
  const lines = report.results.map(
    (r) => `${r.passed ? "PASS" : "FAIL"}  ${r.expect.padEnd(8)}  ${clipped(r.question.replace(/\s+/g, " "), 60)}  ${r.reason}`,
  );
  const { accuracyDelta, newlyFailing, newlyPassing } = report.previous;
  const delta =
    accuracyDelta === null
      ? "no previous run"
      : `${accuracyDelta >= 0 ? "+" : ""}${(accuracyDelta * 100).toFixed(1)} points (${newlyFailing} newly failing, ${newlyPassing} newly passing)`;
  return [
    ...lines,
    "",
    `Run ${report.id}: ${report.status}${report.error ? ` (${report.error})` : ""}`,
    `Accuracy:      ${percent(report.accuracy)} (${report.passed}/${report.cases}), minimum ${percent(min)}`,
    `Decline rate:  ${percent(report.declineRate)}`,
    `Since previous: ${delta}`,
    "",
  ].join("\n");
}

/** The run proves the assistant good enough: completed, with cases, at or above the minimum accuracy. */
export const meetsMinimum = (report: RunReport, min: number) =>
  report.status === "completed" && report.accuracy !== null && report.accuracy >= min;
