import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CreateApiKeyDocument, RevokeApiKeyDocument, TenantDocument } from "../generated.js";
import { startTestApp, type TestApp } from "../helpers/app.js";

let app: TestApp;
let owner: { tenantId: string; apiKey: string };

beforeAll(async () => {
  app = await startTestApp();
  owner = await app.tenant("Errors Bank");
});
afterAll(() => app?.close());

describe("authentication", () => {
  it("accepts the key as Authorization: Bearer and as x-api-key", async () => {
    const bearer = await app.request("/api/conversations", { headers: { authorization: `Bearer ${owner.apiKey}` } });
    const header = await app.request("/api/conversations", { headers: { "x-api-key": owner.apiKey } });
    expect(bearer.status).toBe(200);
    expect(header.status).toBe(200);
  });

  it("answers 401 AUTH_INVALID when the key is missing", async () => {
    const res = await app.request("/api/conversations");
    expect(res.status).toBe(401);
    expect(res.body.code).toBe("AUTH_INVALID");
    expect(typeof res.body.error).toBe("string");
  });

  it("answers 401 AUTH_INVALID for an unknown key, on REST and GraphQL alike", async () => {
    const rest = await app.request("/api/conversations", { key: "prl_thisKeyDoesNotExistAnywhere1234567890" });
    const graphql = await app.graphql(TenantDocument, {}, "prl_thisKeyDoesNotExistAnywhere1234567890");
    expect(rest.status).toBe(401);
    expect(rest.body).toEqual({ error: "Invalid or revoked API key", code: "AUTH_INVALID" });
    expect(graphql.status).toBe(401);
  });

  it("answers 401 AUTH_INVALID for a revoked key", async () => {
    const created = await app.graphql(CreateApiKeyDocument, { name: "soon revoked", role: "viewer" }, owner.apiKey);
    const { key, apiKey } = created.data!.createApiKey;
    expect((await app.request("/api/conversations", { key })).status).toBe(200);
    await app.graphql(RevokeApiKeyDocument, { id: apiKey.id }, owner.apiKey);
    const res = await app.request("/api/conversations", { key });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe("AUTH_INVALID");
  });

  it("gives GraphQL callers without a key AUTH_INVALID in extensions.code", async () => {
    const res = await app.graphql(TenantDocument, {}, null);
    expect(res.errors?.[0]?.extensions?.code).toBe("AUTH_INVALID");
    expect(res.data).toBeNull();
  });
});

describe("permissions", () => {
  it("answers FORBIDDEN when the key's role lacks the permission", async () => {
    const viewer = await app.keyFor(owner.tenantId, "viewer");
    const admin = await app.keyFor(owner.tenantId, "admin");
    for (const key of [viewer, admin]) {
      const res = await app.graphql(CreateApiKeyDocument, { name: "escalation" }, key);
      expect(res.errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
    }
    expect((await app.graphql(TenantDocument, {}, viewer)).data?.tenant.id).toBe(owner.tenantId);
  });
});

describe("error bodies", () => {
  it("answers an unknown route with 404 NOT_FOUND", async () => {
    const res = await app.request("/api/no-such-thing", { key: owner.apiKey });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "No route for GET /api/no-such-thing", code: "NOT_FOUND" });
    expect((await app.request("/nothing-here")).body.code).toBe("NOT_FOUND");
  });

  it("answers headers over Node's limit and malformed HTTP with {error, code} too, and keeps serving", async () => {
    const long = await fetch(`${app.url}/api/conversations?q=${"x".repeat(20_000)}`, { headers: { "x-api-key": owner.apiKey } });
    expect(long.status).toBe(431);
    expect(await long.json()).toEqual({
      error: "The request's headers (its URL included) are larger than 16 kB",
      code: "VALIDATION",
    });
    const { port } = new URL(app.url);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), "127.0.0.1", () => socket.write("GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n"));
      let answer = "";
      socket.on("data", (chunk) => {
        answer += chunk;
      });
      socket.on("end", () => resolve(answer));
      socket.on("error", reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(JSON.parse(raw.slice(raw.indexOf("\r\n\r\n") + 4))).toEqual({
      error: "The request is not valid HTTP",
      code: "VALIDATION",
    });
    expect((await app.request("/api/conversations", { key: owner.apiKey })).status).toBe(200);
  });

  it("answers malformed JSON with 422 VALIDATION and details", async () => {
    const res = await app.request("/graphql", { key: owner.apiKey, body: '{"query": ' });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("VALIDATION");
    expect(res.body.details).toEqual([{ path: "body", message: "malformed JSON" }]);
  });

  it("answers a body over 1 MiB with 413 and code VALIDATION", async () => {
    const big = JSON.stringify({ query: "{ tenant { id } }", padding: "x".repeat(1024 * 1024) });
    const res = await app.request("/graphql", { key: owner.apiKey, body: big });
    expect(res.status).toBe(413);
    expect(res.body.code).toBe("VALIDATION");
  });

  it("answers invalid fields with 422 VALIDATION naming the field, on GraphQL too", async () => {
    const res = await app.graphql(CreateApiKeyDocument, { name: "   " }, owner.apiKey);
    expect(res.errors?.[0]?.extensions?.code).toBe("VALIDATION");
    expect(res.errors?.[0]?.extensions?.details).toEqual([expect.objectContaining({ path: "name" })]);
  });

  it("answers an unexpected failure with 500 INTERNAL and no stack trace", async () => {
    const prisma = app.services.db.prisma;
    const broken = new Proxy(prisma, {
      get(target, prop, receiver) {
        if (prop === "$extends") {
          return () => {
            throw new Error("connection reset by peer at /secret/path.ts:12");
          };
        }
        return Reflect.get(target, prop, receiver);
      },
    });
    app.services.db.prisma = broken;
    try {
      const res = await app.request("/api/conversations", { key: owner.apiKey });
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ error: "Internal server error", code: "INTERNAL" });
      const graphql = await app.graphql(TenantDocument, {}, owner.apiKey);
      expect(graphql.errors?.[0]).toMatchObject({ message: "Internal server error", extensions: { code: "INTERNAL" } });
      expect(JSON.stringify(graphql)).not.toContain("secret");
    } finally {
      app.services.db.prisma = prisma;
    }
  });

  it("tags every response with a request id, echoing a sane X-Request-Id", async () => {
    const res = await app.request("/api/conversations", { key: owner.apiKey, headers: { "x-request-id": "trace-123" } });
    expect(res.headers.get("x-request-id")).toBe("trace-123");
    const generated = await app.request("/api/conversations", { key: owner.apiKey, headers: { "x-request-id": "bad id!" } });
    expect(generated.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("GraphQL request errors", () => {
  it("gives a query that does not match the schema VALIDATION in extensions.code", async () => {
    const res = await app.request("/graphql", { key: owner.apiKey, body: { query: "{ tenant { noSuchField } }" } });
    expect(res.body.errors[0].extensions.code).toBe("VALIDATION");
    expect(res.body.errors[0].message).toContain("noSuchField");
  });
});
