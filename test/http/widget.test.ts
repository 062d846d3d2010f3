import { get } from "node:http";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildWidgetScript } from "../../src/http/widget-script.js";
import { demoTenantName } from "../../src/tenants/bootstrap.js";
import { startTestApp, type TestApp } from "../helpers/app.js";

// What the service serves for the widget besides its API: the script and the demo page.
let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.close());

/** The bytes as sent, without fetch's own decompression. */
function raw(url: string, headers: Record<string, string>) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
    get(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    }).on("error", reject);
  });
}

describe("GET /widget.js", () => {
  it("is under 30 KB gzipped", async () => {
    const { js, gzipped } = await buildWidgetScript();
    expect(gzipped.length).toBeLessThan(30 * 1024);
    expect(gunzipSync(gzipped).equals(js)).toBe(true);
  });

  it("serves the built widget as JavaScript any page may load, gzipped for browsers that accept it", async () => {
    const zipped = await raw(`${app.url}/widget.js`, { "accept-encoding": "gzip, br" });
    expect(zipped.status).toBe(200);
    expect(zipped.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(zipped.headers["content-encoding"]).toBe("gzip");
    expect(zipped.headers["cross-origin-resource-policy"]).toBe("cross-origin");
    const plain = await raw(`${app.url}/widget.js`, {});
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(gunzipSync(zipped.body).equals(plain.body)).toBe(true);
    expect(plain.body.toString()).toContain("x-widget-token");
    const again = await raw(`${app.url}/widget.js`, { "if-none-match": String(plain.headers.etag) });
    expect(again.status).toBe(304);
  });
});

describe("GET /demo", () => {
  it("embeds the demo tenant's widget, set up on the first visit to answer from a demo knowledge base", async () => {
    const demo = await app.tenant(demoTenantName);
    const res = await app.request("/demo");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    const token = (res.body as string).match(
      /<script src="[^"]+\/widget\.js" data-key="([\w-]+)" data-position="bottom-right" defer>/,
    )?.[1];
    expect(token).toBeDefined();
    const headers = { "x-widget-token": token!, origin: app.url };
    const started = await app.request("/api/v1/widget/init", { body: {}, headers });
    expect(started.status).toBe(200);
    expect(started.body.config.title).toBe("Demo Bank");
    const answer = await app.request("/api/v1/widget/message", {
      body: { message: "What are your opening hours?" },
      headers: { ...headers, "x-widget-visitor": started.body.visitor_id },
    });
    expect(answer.body.response).toContain("Monday to Friday");

    expect((await app.request("/demo")).status).toBe(200);
    const channels = await app.request("/api/tenant/channels", { key: demo.apiKey });
    expect(channels.body.channels).toHaveLength(1);
    expect(channels.body.channels[0].settings.allowed_origins).toEqual([app.url]);
    expect((await app.request("/api/knowledge/sources", { key: demo.apiKey })).body.sources).toHaveLength(1);
  });
});

describe("GET /demo in production", () => {
  let production: TestApp;

  beforeAll(async () => {
    production = await startTestApp({ NODE_ENV: "production" });
  });
  afterAll(() => production?.close());

  it("needs an API key that may configure, and shows that tenant's own widget", async () => {
    const bank = await production.tenant(demoTenantName);
    expect((await production.request("/demo")).body.code).toBe("AUTH_INVALID");
    expect((await production.request("/demo", { key: bank.apiKey })).status).toBe(404);
    await production.request("/api/tenant/channels/widget", {
      method: "PUT",
      key: bank.apiKey,
      body: { settings: { title: "Production Bank" } },
    });
    const page = await production.request("/demo", { key: bank.apiKey });
    expect(page.status).toBe(200);
    expect(page.body).toContain("<title>Production Bank");
    const viewer = await production.keyFor(bank.tenantId, "viewer");
    expect((await production.request("/demo", { key: viewer })).status).toBe(403);
  });
});
