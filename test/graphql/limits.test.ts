import { readdirSync, readFileSync } from "node:fs";
import { maxAliasesRule } from "@escape.tech/graphql-armor-max-aliases";
import { maxDepthRule } from "@escape.tech/graphql-armor-max-depth";
import { maxDirectivesRule } from "@escape.tech/graphql-armor-max-directives";
import { type DocumentNode, Kind, Lexer, parse, Source, TokenKind, type ValidationRule, validate } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { operationCost } from "../../src/graphql/cost.js";
import { operationLimits } from "../../src/graphql/limits.js";
import { schema } from "../../src/graphql/schema/index.js";
import { startTestApp, type TestApp } from "../helpers/app.js";

// Issue 10: GraphQL that cannot freeze an instance. Every limit is checked before anything runs.

let app: TestApp;
let key: string;

beforeAll(async () => {
  app = await startTestApp();
  key = (await app.tenant("Limits Bank")).apiKey;
});
afterAll(() => app?.close());

async function post(body: string, contentType = "application/json", accept = "application/json") {
  const res = await fetch(`${app.url}/graphql`, {
    method: "POST",
    headers: { "content-type": contentType, accept, authorization: `Bearer ${key}` },
    body,
  });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) };
}

const query = (document: string, variables?: Record<string, unknown>) => post(JSON.stringify({ query: document, variables }));

function expectRefused(res: { status: number; body: any }, message: RegExp) {
  expect(res.status).toBe(400);
  expect(res.body.data).toBeUndefined();
  expect(res.body.errors).toEqual([{ message: expect.stringMatching(message), extensions: { code: "VALIDATION" } }]);
}

const nested = (depth: number) => `{ agents { items { ${"teams { members { ".repeat(depth)}id${" } }".repeat(depth)} } } }`;
const aliased = (count: number, field = 'searchKnowledge(query: "card") { score }') =>
  `{ ${Array.from({ length: count }, (_, i) => `a${i}: ${field}`).join(" ")} }`;

describe("operation limits", () => {
  it("refuses deeply nested relations with 400 VALIDATION", async () => {
    expectRefused(await query(nested(20)), /depth limit of 10 exceeded/);
  });

  it("refuses hundreds of aliases of an expensive field", async () => {
    expectRefused(await query(aliased(100)), /Aliases limit of 20 exceeded, found 100/);
    // Longer still, the document is refused for its tokens before it is read whole.
    expectRefused(await query(aliased(300)), /Token limit of 2000 exceeded/);
  });

  it("refuses an operation whose cost, with its page sizes, is over the limit", async () => {
    // Within depth, aliases and tokens, but 100 agents × 10 teams × 10 members × 10 teams each.
    const document = "query Q($n: Int) { agents(limit: $n) { items { teams { members { teams { id } } } } } }";
    expectRefused(await query(document, { n: 100 }), /cost limit of 10000 exceeded, found \d+/);
    const small = await query(document, { n: 5 });
    expect(small.status).toBe(200);
    expect(small.body.errors).toBeUndefined();
  });

  it("refuses eleven logins under different aliases by their cost, before any password is checked", async () => {
    const logins = aliased(11, 'login(email: "a@bank.example", password: "guess") { token }');
    expectRefused(await query(`mutation ${logins}`), /cost limit of 10000 exceeded, found 11011/);
  });

  it("refuses too many directives", async () => {
    expectRefused(await query(`{ tenant { id ${"@include(if: true) ".repeat(50)} } }`), /Directives limit of 20 exceeded/);
  });

  it("refuses a document of too many tokens before parsing it whole", async () => {
    expectRefused(await query(`{ ${"__typename ".repeat(3000)} }`), /Token limit of 2000 exceeded/);
  });

  it("answers 413 with the JSON error for a multi-megabyte document, whatever its content type", async () => {
    const huge = `{ ${"__typename ".repeat(300_000)} }`;
    for (const [contentType, body] of [
      ["application/json", JSON.stringify({ query: huge })],
      ["application/graphql", huge],
      ["application/x-www-form-urlencoded", `query=${encodeURIComponent(huge)}`],
      ["text/plain", huge],
    ] as const) {
      const res = await post(body, contentType);
      expect(res.status, contentType).toBe(413);
      expect(res.body).toEqual({ error: expect.stringMatching(/larger than 1048576 bytes/), code: "VALIDATION" });
    }
  });

  it("still answers a small application/graphql document", async () => {
    const res = await post("{ tenant { name } }", "application/graphql");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { tenant: { name: "Limits Bank" } } });
  });

  it("keeps /healthz answering while attacks are refused", async () => {
    const attacks = [
      query(nested(50)),
      query(aliased(600)),
      query(`{ ${"__typename ".repeat(100_000)} }`),
      query(`{ tenant { id ${"@include(if: true) ".repeat(500)} } }`),
      post(`{ ${"__typename ".repeat(300_000)} }`, "application/graphql"),
    ];
    const health = await fetch(`${app.url}/healthz`);
    expect(health.status).toBe(200);
    const answers = await Promise.all(attacks);
    for (const answer of answers) expect([400, 413]).toContain(answer.status);
  });
});

describe("the operator's settings", () => {
  // An instance of its own, started inside the test: as long as a hook may take to start one on a loaded machine.
  it("replace the limits: an instance set tighter refuses what the defaults allow, and still serves its REST routes", async () => {
    const strict = await startTestApp({ GRAPHQL_MAX_DEPTH: "7", GRAPHQL_MAX_ALIASES: "2", GRAPHQL_MAX_DIRECTIVES: "1" });
    try {
      const bank = await strict.tenant("Strict Bank");
      const ask = async (document: string) => {
        const res = await strict.request("/graphql", { key: bank.apiKey, body: { query: document } });
        return { status: res.status, body: res.body };
      };
      expectRefused(await ask(aliased(3, "tenant { id }")), /Aliases limit of 2 exceeded, found 3/);
      expectRefused(await ask(nested(3)), /depth limit of 7 exceeded/);
      expectRefused(await ask("{ tenant { id @include(if: true) @skip(if: false) } }"), /Directives limit of 1 exceeded/);
      expect((await ask(aliased(2, "tenant { id }"))).status).toBe(200);
      expect((await strict.request("/api/conversations", { key: bank.apiKey })).status).toBe(200);
    } finally {
      await strict.close();
    }
  }, 120_000);

  it("may not go below what the service's own operations need", () => {
    expect(() => loadConfig({ GRAPHQL_MAX_DEPTH: "6" })).toThrow(/GRAPHQL_MAX_DEPTH/);
    expect(() => loadConfig({ GRAPHQL_MAX_COST: "5000" })).toThrow(/GRAPHQL_MAX_COST/);
    expect(operationLimits(loadConfig({}))).toEqual({ tokens: 2_000, depth: 10, aliases: 20, directives: 20, cost: 10_000 });
  });
});

describe("the service's own operations", () => {
  // The least an operator may set (config.ts): the service must still work there.
  const least = operationLimits(
    loadConfig({
      GRAPHQL_MAX_TOKENS: "1000",
      GRAPHQL_MAX_DEPTH: "7",
      GRAPHQL_MAX_ALIASES: "0",
      GRAPHQL_MAX_DIRECTIVES: "0",
      GRAPHQL_MAX_COST: "6000",
    }),
  );
  const files = ["src/rest/operations", "test/operations", "dashboard/operations"].flatMap((dir) =>
    readdirSync(dir).map((file) => `${dir}/${file}`),
  );
  const documents = files.map((file) => parse(readFileSync(file, "utf8")));
  const fragments = documents.flatMap((d) => d.definitions.filter((def) => def.kind === Kind.FRAGMENT_DEFINITION));
  const operations = documents.flatMap((d) => d.definitions.filter((def) => def.kind === Kind.OPERATION_DEFINITION));

  it("fit the smallest limits an operator may set, at the largest page size", () => {
    expect(operations.length).toBeGreaterThan(50);
    const rules = [
      maxDepthRule({ n: least.depth }),
      maxAliasesRule({ n: least.aliases }),
      maxDirectivesRule({ n: least.directives }),
    ] as ValidationRule[];
    for (const operation of operations) {
      const document: DocumentNode = { kind: Kind.DOCUMENT, definitions: [operation, ...fragments] };
      expect(validate(schema, document, rules)).toEqual([]);
      const variables = { limit: 100, topK: 50 };
      expect(operationCost(schema, document, operation.name?.value, variables)).toBeLessThanOrEqual(least.cost);
    }
    for (const file of files) {
      const lexer = new Lexer(new Source(readFileSync(file, "utf8")));
      let tokens = 0;
      while (lexer.advance().kind !== TokenKind.EOF) tokens++;
      expect(tokens, file).toBeLessThanOrEqual(least.tokens);
    }
  });
});

describe("introspection", () => {
  const introspect = (target: TestApp) => target.request("/graphql", { body: { query: "{ __schema { queryType { name } } }" } });

  it("answers outside production", async () => {
    const res = await introspect(app);
    expect(res.body).toEqual({ data: { __schema: { queryType: { name: "Query" } } } });
  });

  it("is off in production, with no field suggestions either, unless GRAPHQL_INTROSPECTION=true", async () => {
    const production = await startTestApp({ NODE_ENV: "production" });
    const opened = await startTestApp({ NODE_ENV: "production", GRAPHQL_INTROSPECTION: "true" });
    try {
      const refused = await introspect(production);
      expect(refused.body.data).toBeUndefined();
      expect(refused.body.errors[0]).toMatchObject({
        message: expect.stringMatching(/introspection/),
        extensions: { code: "VALIDATION" },
      });
      const typo = await production.request("/graphql", { body: { query: "{ tenat { id } }" } });
      expect(typo.body.errors[0].message).not.toMatch(/Did you mean/);
      expect((await introspect(opened)).body.data.__schema.queryType.name).toBe("Query");
    } finally {
      await Promise.all([production.close(), opened.close()]);
    }
  }, 180_000);
});
