import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { captureLogs } from "../helpers/logs.js";
import { rowCounts } from "../helpers/properties.js";

// Input nothing can store or read gets a clear 4xx before anything is written (the defects the property
// suites found, one example each).

let app: TestApp;
let key: string;
const logs = captureLogs();

beforeAll(async () => {
  app = await startTestApp({ LOG_LEVEL: "error" }, { logDestination: logs.destination });
  ({ apiKey: key } = await app.tenant("Input Bank"));
});

afterAll(async () => {
  await app?.close();
});

const post = (path: string, body: string | Uint8Array | FormData, headers: Record<string, string> = {}) =>
  fetch(`${app.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, ...headers },
    body: body instanceof Uint8Array ? new Blob([new Uint8Array(body)]) : body,
  }).then(async (res) => ({ status: res.status, body: JSON.parse((await res.text()) || "null") }));

const json = { "content-type": "application/json" };

describe("text PostgreSQL cannot store", () => {
  it("answers 422 VALIDATION naming the field for a NUL in a chat message, and writes nothing", async () => {
    const before = await rowCounts(app);
    const res = await post("/api/chat", JSON.stringify({ message: "hello\u0000world" }), json);
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: "VALIDATION", details: [{ path: "message" }] });
    expect(await rowCounts(app)).toEqual(before);
  });

  it("answers 422 for an unpaired surrogate in a manual knowledge source", async () => {
    const body = '{"type":"manual","title":"Fees","content":"Card fees \\ud800 apply"}';
    const res = await post("/api/knowledge/sources", body, json);
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: "VALIDATION", details: [{ path: "content" }] });
  });

  it("answers 422 for a body that is not UTF-8", async () => {
    const body = Buffer.concat([Buffer.from('{"message":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    const res = await post("/api/chat", body, json);
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: "VALIDATION", error: "Request body is not valid UTF-8" });
  });

  it("answers 422 for JSON nested deeper than any real body", async () => {
    const res = await post("/api/chat", `{"message":"hi","conversationId":${"[".repeat(5000)}${"]".repeat(5000)}}`, json);
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("VALIDATION");
  });

  it("answers 422 for a NUL in a query parameter or a path segment, 400 for a path that is not UTF-8", async () => {
    const auth = { authorization: `Bearer ${key}` };
    const query = await fetch(`${app.url}/api/conversations?q=%00`, { headers: auth });
    expect(query.status).toBe(422);
    expect(await query.json()).toMatchObject({ code: "VALIDATION", details: [{ path: "query.q" }] });
    const path = await fetch(`${app.url}/api/conversations/conv_%00`, { headers: auth });
    expect(path.status).toBe(422);
    const bytes = await fetch(`${app.url}/api/conversations/%ff`, { headers: auth });
    expect(bytes.status).toBe(400);
    expect((await bytes.json()).code).toBe("VALIDATION");
  });

  it("checks the path on every route, those before the JSON parser too: the widget's, the dashboard's, sign-on's", async () => {
    const logged = logs.lines.length;
    for (const [method, path, status] of [
      ["GET", "/auth/oidc/%00/start", 422],
      ["GET", "/auth/oidc/%ED%A0%80/start", 400],
      ["GET", "/dashboard/%ZZ", 400],
      ["GET", "/dashboard/assets/%ZZ", 400],
      ["POST", "/api/v1/widget/%ZZ", 400],
    ] as const) {
      const res = await fetch(`${app.url}${path}`, { method });
      expect(res.status, path).toBe(status);
      expect((await res.json()).code, path).toBe("VALIDATION");
    }
    // Refused as the caller's mistake, not failed as the service's.
    expect(logs.lines.slice(logged).filter((line) => line.level >= 50)).toEqual([]);
  });
});

describe("bodies that cannot be read", () => {
  it("answers 400 VALIDATION for a corrupt gzip or deflate body", async () => {
    for (const encoding of ["gzip", "deflate"]) {
      const res = await post("/api/chat", "not compressed", { ...json, "content-encoding": encoding });
      expect(res.status, encoding).toBe(400);
      expect(res.body).toEqual({ error: `Request body is not valid ${encoding} data`, code: "VALIDATION" });
    }
    const good = await post("/api/chat", gzipSync('{"message":"hi"}'), { ...json, "content-encoding": "gzip" });
    expect(good.status).toBe(200);
  });

  it("answers 400 VALIDATION for multipart without a boundary, or cut short", async () => {
    const missing = await post("/api/knowledge/sources", "xxx", { "content-type": "multipart/form-data" });
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe("VALIDATION");
    const cut = '--b\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\n\r\n%PDF';
    const truncated = await post("/api/knowledge/sources", cut, { "content-type": "multipart/form-data; boundary=b" });
    expect(truncated.status).toBe(400);
    expect(truncated.body.code).toBe("VALIDATION");
  });
});

describe("malformed GraphQL", () => {
  it("answers a syntax error and variables of the wrong type 400 with extensions.code VALIDATION", async () => {
    const syntax = await post("/graphql", JSON.stringify({ query: "{ tenant { id" }), json);
    expect(syntax.status).toBe(400);
    expect(syntax.body.errors[0].extensions.code).toBe("VALIDATION");
    const query = "query($status: String) { jobs(status: $status) { total } }";
    const wrongType = await post("/graphql", JSON.stringify({ query, variables: { status: [] } }), json);
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.errors.map((e: { extensions: { code: string } }) => e.extensions.code)).not.toContain("INTERNAL");
  });

  it("answers a body type it cannot read 415 with {error, code}", async () => {
    const res = await post("/graphql", "{ tenant { id } }", { "content-type": "text/plain" });
    expect(res.status).toBe(415);
    expect(res.body.code).toBe("VALIDATION");
  });

  it("answers GET variables that are not JSON 400 rather than INTERNAL", async () => {
    const res = await fetch(`${app.url}/graphql?query=${encodeURIComponent("{ tenant { id } }")}&variables=%7Bx`, {
      headers: { authorization: `Bearer ${key}`, accept: "application/json" },
    });
    expect(res.status).toBe(400);
    expect((await res.json()).code).toBe("VALIDATION");
  });

  it("answers requests without a query or with variables that are not an object 400, logged as answers, not failures", async () => {
    const logged = logs.lines.length;
    for (const body of [
      '{"variables": {}}',
      '{"query": "{ tenant { id } }", "variables": "x"}',
      '{"query": "{ tenant { id } }", "variables": [1]}',
    ]) {
      const res = await post("/graphql", body, json);
      expect(res.status, body).toBe(400);
    }
    expect(logs.lines.slice(logged).filter((line) => line.level >= 50)).toEqual([]);
  });

  it("answers a NUL in a string literal or in multipart variables 400 VALIDATION", async () => {
    const literal = await post(
      "/graphql",
      JSON.stringify({ query: 'mutation { chat(message: "a\\u0000b") { response } }' }),
      json,
    );
    expect(literal.status).toBe(400);
    expect(literal.body.errors[0].extensions.code).toBe("VALIDATION");
    const form = new FormData();
    form.set(
      "operations",
      JSON.stringify({ query: "mutation($m: String!) { chat(message: $m) { response } }", variables: { m: "a\u0000" } }),
    );
    form.set("map", "{}");
    const multipart = await post("/graphql", form);
    expect(multipart.status).toBe(400);
    expect(multipart.body.errors[0].extensions).toMatchObject({ code: "VALIDATION", details: [{ path: "m" }] });
  });
});

describe("a 500", () => {
  it("logs the failure that caused it, not only where it was translated", async () => {
    const prisma = app.services.db.prisma;
    app.services.db.prisma = new Proxy(prisma, {
      get(target, prop, receiver) {
        if (prop === "$extends") {
          // The tenant's client fails inside the resolver, as a lost connection would.
          return (...args: Parameters<typeof prisma.$extends>) =>
            new Proxy(target.$extends(...args), {
              get(scoped, name, scopedReceiver) {
                if (name === "conversation") throw new Error("connection reset by peer (the cause)");
                return Reflect.get(scoped, name, scopedReceiver);
              },
            });
        }
        return Reflect.get(target, prop, receiver);
      },
    });
    try {
      const res = await fetch(`${app.url}/api/conversations`, { headers: { authorization: `Bearer ${key}` } });
      expect(res.status).toBe(500);
    } finally {
      app.services.db.prisma = prisma;
    }
    const failed = logs.lines.filter((l) => l.level >= 50).map((l) => JSON.stringify(l.err));
    expect(failed.some((err) => err.includes("connection reset by peer (the cause)"))).toBe(true);
  });
});
