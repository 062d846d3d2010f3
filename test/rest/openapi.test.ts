import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restRoutes } from "../../src/rest/index.js";
import type { OpenApiDocument } from "../../src/rest/openapi.js";
import { startTestApp, type TestApp } from "../helpers/app.js";

let app: TestApp;
let document: OpenApiDocument;

beforeAll(async () => {
  app = await startTestApp();
  document = (await app.request("/openapi.json")).body;
});
afterAll(() => app?.close());

describe("GET /openapi.json", () => {
  it("answers the document without an API key", async () => {
    const res = await app.request("/openapi.json");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(res.body.openapi).toBe("3.1.0");
  });

  it("is a valid OpenAPI 3.1 document", async () => {
    // A copy of its own: the validator annotates the object it checks.
    const fresh = (await app.request("/openapi.json")).body;
    const validator = new Validator();
    const result = await validator.validate(fresh);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("documents every route of the REST route table", () => {
    for (const route of restRoutes(app.services)) {
      const path = route.path.replace(/:(\w+)/g, "{$1}");
      expect(document.paths[path]?.[route.method], `${route.method} ${path}`).toMatchObject({
        tags: [route.tag],
        summary: route.summary,
      });
    }
  });

  it("lists the conversation list's query parameters and its success body", () => {
    const list = document.paths["/api/conversations"]!.get!;
    expect(list.parameters!.map((p) => p.name).sort()).toEqual(["channel", "from", "limit", "page", "q", "status", "to"]);
    expect(list.parameters!.every((p) => p.in === "query" && !p.required)).toBe(true);
    expect(list.parameters!.find((p) => p.name === "limit")!.schema).toMatchObject({ type: "integer", minimum: 1, maximum: 100 });
    expect(list.parameters!.find((p) => p.name === "status")!.schema.enum).toContain("escalated");
    const body = (list.responses["200"] as any).content["application/json"].schema;
    expect(Object.keys(body.properties).sort()).toEqual(["conversations", "limit", "page", "total"]);
  });

  it("turns :id into a required path parameter", () => {
    const one = document.paths["/api/conversations/{id}"]!.get!;
    expect(one.parameters).toContainEqual({ name: "id", in: "path", required: true, schema: { type: "string" } });
    expect(document.paths["/api/conversations/{id}/messages"]!.get!.parameters![0]).toMatchObject({ name: "id", in: "path" });
  });

  it("documents the 401, 422 and 429 answers with the shared error body and the rate-limit headers", () => {
    const list = document.paths["/api/conversations"]!.get!;
    expect(list.responses["401"]).toEqual({ $ref: "#/components/responses/Unauthorized" });
    expect(list.responses["422"]).toEqual({ $ref: "#/components/responses/ValidationFailed" });
    expect(list.responses["429"]).toEqual({ $ref: "#/components/responses/RateLimited" });

    const { responses, schemas } = document.components;
    expect(schemas.Error).toMatchObject({
      required: ["error", "code"],
      properties: {
        code: { enum: ["AUTH_INVALID", "FORBIDDEN", "NOT_FOUND", "VALIDATION", "RATE_LIMIT", "INTERNAL", "EXTERNAL"] },
      },
    });
    expect(responses.Unauthorized!.content!["application/json"]!.schema.allOf).toEqual([
      { $ref: "#/components/schemas/Error" },
      { properties: { code: { const: "AUTH_INVALID" } } },
    ]);
    expect(Object.keys(responses.RateLimited!.headers).sort()).toEqual([
      "RateLimit-Limit",
      "RateLimit-Remaining",
      "RateLimit-Reset",
      "Retry-After",
    ]);
    expect(Object.keys((list.responses["200"] as any).headers)).toEqual([
      "RateLimit-Limit",
      "RateLimit-Remaining",
      "RateLimit-Reset",
    ]);
  });

  it("requires the API key as a bearer token or x-api-key on key-authenticated routes", () => {
    expect(document.components.securitySchemes).toEqual({
      bearer: expect.objectContaining({ type: "http", scheme: "bearer" }),
      apiKey: expect.objectContaining({ type: "apiKey", in: "header", name: "x-api-key" }),
    });
    expect(document.paths["/api/conversations"]!.get!.security).toEqual([{ bearer: [] }, { apiKey: [] }]);
  });

  it("documents POST /graphql under the GraphQL tag, pointing to the schema", () => {
    const graphql = document.paths["/graphql"]!.post!;
    expect(graphql.tags).toEqual(["GraphQL"]);
    expect(graphql.description).toContain("schema.graphql");
    expect(graphql.requestBody!.content["application/json"].schema).toMatchObject({ required: ["query"] });
    expect(Object.keys(graphql.responses)).toEqual(expect.arrayContaining(["200", "401", "413", "429"]));
  });
});

describe("GET /docs", () => {
  it("answers a readable HTML page of every operation outside production", async () => {
    const res = await app.request("/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(res.body).toContain("/api/conversations/{id}/messages");
    expect(res.body).toContain("/graphql");
    expect(res.body).toContain('href="/openapi.json"');
  });

  it("loads nothing from other hosts", async () => {
    const res = await app.request("/docs");
    expect(res.body).not.toMatch(/https?:\/\//);
    expect(res.body).not.toMatch(/<(script|link|img|iframe)\b/i);
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
  });
});

const graphiql = (target: TestApp) => target.request("/graphql", { headers: { accept: "text/html" } });

describe("GraphiQL", () => {
  it("is served on GET /graphql to a browser outside production", async () => {
    const res = await graphiql(app);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(res.body).toContain("GraphiQL");
  });
});

describe("in production", () => {
  let production: TestApp;
  beforeAll(async () => {
    production = await startTestApp({ NODE_ENV: "production" });
  });
  afterAll(() => production?.close());

  it("answers 404 NOT_FOUND for /docs", async () => {
    const res = await production.request("/docs");
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(res.body).toEqual({ error: expect.any(String), code: "NOT_FOUND" });
  });

  it("serves no GraphiQL page on GET /graphql, and says so as a JSON error", async () => {
    const res = await graphiql(production);
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(res.body).toEqual({ error: expect.stringMatching(/POST \/graphql/), code: "NOT_FOUND" });
  });

  it("still answers GraphQL over GET to a client that asks for JSON", async () => {
    const res = await production.request("/graphql?query=%7B__typename%7D", { headers: { accept: "application/json" } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { __typename: "Query" } });
  });

  it("still serves /openapi.json without an API key", async () => {
    const res = await production.request("/openapi.json");
    expect(res.status).toBe(200);
    expect(res.body).toEqual(document);
  });
});
