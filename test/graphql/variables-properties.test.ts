import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { type OperationDefinitionNode, parse, print, type TypeNode } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { countInputs, expectClearAnswer, oddJson, oddString, propertyOptions, rowCounts } from "../helpers/properties.js";

// The operations of test/operations/*.graphql (the ones clients send), with generated variables: odd
// values of the right scalar type, values of any type, missing and unknown variables. The answer is 2xx or
// a 4xx with GraphQL errors carrying `extensions.code`, never INTERNAL; a refused operation wrote nothing.

const operationsDir = path.join(import.meta.dirname, "..", "operations");
const document = readdirSync(operationsDir)
  .filter((f) => f.endsWith(".graphql"))
  .map((f) => readFileSync(path.join(operationsDir, f), "utf8"))
  .join("\n");
const query = print(parse(document));

// Subscriptions stream over SSE: their inputs are the chat's, driven through /api/chat and the mutation.
const operations = parse(document).definitions.filter(
  (d): d is OperationDefinitionNode => d.kind === "OperationDefinition" && d.operation !== "subscription",
);

let app: TestApp;
let ownerKey: string;
const counted = countInputs("GraphQL variables");
const runsPerOperation = 8;

beforeAll(async () => {
  app = await startTestApp({ RATE_LIMIT_MAX: "1000000" });
  ({ apiKey: ownerKey } = await app.tenant("GraphQL Property Bank"));
});

afterAll(async () => {
  await app?.close();
});

const namedType = (type: TypeNode): string => (type.kind === "NamedType" ? type.name.value : namedType(type.type));

/** A value the variable's type might accept, odd at the edges, or anything at all. */
function valueFor(type: TypeNode): fc.Arbitrary<unknown> {
  const typed: Record<string, fc.Arbitrary<unknown>> = {
    String: oddString,
    ID: oddString,
    Int: fc.oneof(fc.integer(), fc.constantFrom(2 ** 31, -(2 ** 53), 0)),
    Float: fc.double(),
    Boolean: fc.boolean(),
    DateTime: fc.oneof(
      fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
      oddString,
    ),
  };
  const own = typed[namedType(type)] ?? oddJson;
  const maybeList = type.kind === "ListType" ? fc.array(own, { maxLength: 3 }) : own;
  return fc.oneof({ weight: 3, arbitrary: maybeList }, { weight: 1, arbitrary: oddJson });
}

function variablesOf(operation: OperationDefinitionNode) {
  const defined = operation.variableDefinitions ?? [];
  const named = Object.fromEntries(defined.map((d) => [d.variable.name.value, valueFor(d.type)]));
  return fc.tuple(
    fc.record(named, { requiredKeys: [] }),
    fc.dictionary(
      oddString.filter((s) => s.length < 30),
      oddJson,
      { maxKeys: 2 },
    ),
  );
}

describe("every GraphQL operation answers generated variables with 2xx or a 4xx with extensions.code", () => {
  it.each(operations.map((o) => [o.name?.value ?? "anonymous", o] as const))("%s", async (name, operation) => {
    await fc.assert(
      fc.asyncProperty(variablesOf(operation), async ([known, unknown]) => {
        counted();
        const variables = { ...unknown, ...known };
        const before = await rowCounts(app);
        const res = await app.request("/graphql", {
          key: ownerKey,
          body: JSON.stringify({ query, operationName: name, variables }),
        });
        const input = `${name} ${JSON.stringify(variables)}`;
        expectClearAnswer(res, input);
        const refused = res.status >= 400 || (res.body?.errors?.length && !Object.values(res.body.data ?? {}).some(Boolean));
        if (refused) expect(await rowCounts(app), `no write after ${res.status} for ${input.slice(0, 300)}`).toEqual(before);
      }),
      propertyOptions(runsPerOperation),
    );
  });
});
