import fc from "fast-check";
import { afterAll, expect } from "vitest";
import type { ApiResponse, TestApp } from "./app.js";

// Property-based input suites: fast-check generates requests, the service must answer each clearly.
// Each run is an HTTP request, so the runs are bounded per suite (a few tens of seconds on a slow 2-core
// machine); PROPERTY_RUNS overrides the runs of every property. PROPERTY_SEED replays a run: a failure
// prints its seed, and `PROPERTY_SEED=<seed> npx vitest run <file>` reproduces it.

const runsOverride = process.env.PROPERTY_RUNS === undefined ? undefined : Number(process.env.PROPERTY_RUNS);
const seed = process.env.PROPERTY_SEED === undefined ? undefined : Number(process.env.PROPERTY_SEED);

/** The options of every property: bounded runs, replayable by seed. */
export function propertyOptions(numRuns: number): fc.Parameters<unknown> {
  return { numRuns: runsOverride ?? numRuns, ...(seed === undefined ? {} : { seed }), endOnFailure: true };
}

/** Counts the inputs a suite generated and reports the total when the file is done. */
export function countInputs(suite: string): () => void {
  let count = 0;
  afterAll(() => {
    console.info(`[properties] ${suite}: ${count} generated inputs`);
  });
  return () => {
    count++;
  };
}

/** Strings that have broken parsers and databases: NUL, unpaired surrogates, huge, numeric, prototype keys. */
export const oddString: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.constantFrom(
    "\u0000",
    "a\u0000b",
    "\ud800",
    "x\udfffy",
    "\ud83d\ude00",
    "",
    " ",
    "null",
    "-1",
    "1e309",
    "__proto__",
    "constructor",
    "'; DROP TABLE messages; --",
    "%00",
    "\\u0000",
    "2026-02-30T25:61:00Z",
    "http://127.0.0.1:1/",
  ),
  fc.integer({ min: 4_000, max: 70_000 }).map((n) => "é".repeat(n)),
);

const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

/** Any JSON value, leaning to odd strings, wrong types and (as text) absurd nesting. */
export const oddJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", maxDepth: 4 },
    oddString,
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(oddString, tie("value"), { maxKeys: 4 }),
  ),
})).value;

/** JSON text: a generated value, or nesting no real body has. */
export const oddJsonText: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: oddJson.map((v) => JSON.stringify(v) ?? "null") },
  { weight: 1, arbitrary: fc.integer({ min: 60, max: 100_000 }).map(nested) },
);

/** Bytes as a URL component: any bytes, or a string's UTF-8 (where unpaired surrogates become U+FFFD). */
export const oddUrlComponent: fc.Arbitrary<string> = fc
  .oneof(
    oddString.filter((s) => s.length < 200).map((s) => Buffer.from(s, "utf8")),
    fc.uint8Array({ maxLength: 12 }).map((b) => Buffer.from(b)),
  )
  .map((bytes) => [...bytes].map((b) => `%${b.toString(16).padStart(2, "0")}`).join(""));

const writtenTables = [
  "tenants",
  "users",
  "teams",
  "api_keys",
  "channels",
  "conversations",
  "messages",
  "escalations",
  "conversation_events",
  "intents",
  "intent_examples",
  "knowledge_sources",
  "chunks",
  "jobs",
  "voices",
  "evaluation_cases",
  "evaluation_runs",
];

/** How many rows each table holds: equal before and after a refused request, or it half-wrote something. */
export async function rowCounts(app: TestApp): Promise<Record<string, number>> {
  const columns = writtenTables.map((t) => `(SELECT count(*) FROM ${t})::int AS ${t}`).join(", ");
  const [row] = await app.services.db.prisma.$queryRawUnsafe<Array<Record<string, number>>>(`SELECT ${columns}`);
  return row!;
}

/** A GraphQL result's error codes, when the body is one. */
function graphqlCodes(body: unknown): string[] | null {
  const errors = (body as { errors?: unknown } | null)?.errors;
  if (!Array.isArray(errors)) return null;
  return errors.map((e) => String((e as { extensions?: { code?: unknown } }).extensions?.code));
}

/**
 * The property every input suite checks: 2xx, or a 4xx that says what was wrong as `{error, code}` (on
 * /graphql, as GraphQL errors with `extensions.code`); never a 5xx, nor a GraphQL INTERNAL error.
 */
export function expectClearAnswer(res: ApiResponse, input: string): void {
  const what = `${res.status} ${JSON.stringify(res.body)?.slice(0, 300)} for ${input.slice(0, 300)}`;
  expect(res.status, what).toBeGreaterThanOrEqual(200);
  expect(res.status, what).toBeLessThan(500);
  const codes = graphqlCodes(res.body);
  expect(codes ?? [], what).not.toContain("INTERNAL");
  if (res.status < 400) return;
  if (codes) {
    expect(codes.length, what).toBeGreaterThan(0);
    expect(codes, what).not.toContain("undefined");
  } else {
    expect(res.body, what).toMatchObject({ error: expect.any(String), code: expect.any(String) });
  }
}
