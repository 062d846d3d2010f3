import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/app.js";

// Issue 10: CORS and security headers on every answer, and GraphiQL that needs no internet.

const dashboard = "https://dashboard.bank.example";
let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ GRAPHQL_CORS_ORIGINS: `${dashboard}, https://ops.bank.example/` });
});
afterAll(() => app?.close());

const graphqlFrom = (origin: string, method = "POST") =>
  fetch(`${app.url}/graphql`, {
    method,
    headers:
      method === "OPTIONS"
        ? { origin, "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type" }
        : { origin, "content-type": "application/json" },
    body: method === "POST" ? JSON.stringify({ query: "{ __typename }" }) : undefined,
  });

describe("CORS on /graphql", () => {
  it("gives another origin no CORS headers at all, on the preflight and on the request", async () => {
    for (const method of ["OPTIONS", "POST"]) {
      const res = await graphqlFrom("https://evil.example", method);
      expect(res.headers.get("access-control-allow-origin"), method).toBeNull();
      expect(res.headers.get("access-control-allow-credentials"), method).toBeNull();
    }
    expect((await graphqlFrom("null", "OPTIONS")).headers.get("access-control-allow-origin")).toBeNull();
  });

  it("allows the operator's origins, without credentials", async () => {
    for (const origin of [dashboard, "https://ops.bank.example"]) {
      const preflight = await graphqlFrom(origin, "OPTIONS");
      expect(preflight.headers.get("access-control-allow-origin")).toBe(origin);
      expect(preflight.headers.get("access-control-allow-headers")).toContain("authorization");
      expect(preflight.headers.get("access-control-allow-credentials")).toBeNull();
      const res = await graphqlFrom(origin);
      expect(res.status).toBe(200);
      expect(res.headers.get("access-control-allow-origin")).toBe(origin);
    }
  });
});

describe("security headers", () => {
  it("are on every answer: probes, API errors, GraphQL, documents, 404s", async () => {
    for (const path of ["/healthz", "/api/conversations", "/graphql?query=%7B__typename%7D", "/openapi.json", "/nowhere"]) {
      const res = await fetch(`${app.url}${path}`, { headers: { accept: "application/json" } });
      expect(res.headers.get("x-content-type-options"), path).toBe("nosniff");
      expect(res.headers.get("x-frame-options"), path).toBe("DENY");
      expect(res.headers.get("strict-transport-security"), path).toMatch(/max-age=\d+/);
      expect(res.headers.get("referrer-policy"), path).toBe("no-referrer");
      expect(res.headers.get("content-security-policy"), path).toContain("default-src 'none'");
      expect(res.headers.get("x-powered-by"), path).toBeNull();
    }
  });

  it("let other sites' pages load the widget script, and its probe of /healthz, but nothing else", async () => {
    const res = await fetch(`${app.url}/widget.js`);
    expect(res.headers.get("cross-origin-resource-policy")).toBe("cross-origin");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect((await fetch(`${app.url}/healthz`)).headers.get("cross-origin-resource-policy")).toBe("cross-origin");
    expect((await fetch(`${app.url}/openapi.json`)).headers.get("cross-origin-resource-policy")).toBe("same-origin");
  });

  it("keep the docs page's own policy, which lets it show its inline styles", async () => {
    const res = await fetch(`${app.url}/docs`);
    expect(res.headers.get("content-security-policy")).toBe("default-src 'none'; style-src 'unsafe-inline'");
  });
});

describe("GraphiQL", () => {
  const page = () => fetch(`${app.url}/graphql`, { headers: { accept: "text/html", "accept-encoding": "gzip" } });

  it("references no other host: its scripts, styles, fonts and workers are in the page", async () => {
    const res = await page();
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("renderYogaGraphiQL");
    // Outside the one inline script (whose bundled code mentions URLs in strings and comments), the page has
    // no attribute or stylesheet reference to another host.
    const outsideScript = html.replace(/<script>[\s\S]*?<\/script>/g, "");
    expect(outsideScript).not.toMatch(/(src|href)\s*=\s*["']?(https?:)?\/\//i);
    expect(outsideScript).not.toMatch(/url\(\s*["']?(https?:)?\/\//i);
    expect(outsideScript).not.toMatch(/@import/i);
    expect(html).not.toMatch(/<script[^>]+src=/i);
  });

  it("has a policy that names no other host, and runs its one script by hash", async () => {
    const policy = (await page()).headers.get("content-security-policy")!;
    expect(policy).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'/);
    expect(policy).toContain("connect-src 'self'");
    expect(policy).not.toMatch(/https?:|\*|'unsafe-eval'/);
    expect(policy.match(/script-src[^;]*/)![0]).not.toContain("'unsafe-inline'");
  });
});

describe("the dashboard", () => {
  it("answers every page under /dashboard with the app, under a policy of its own files only", async () => {
    for (const page of ["/dashboard", "/dashboard/inbox/conv_123", "/dashboard/settings?tab=keys"]) {
      const res = await fetch(`${app.url}${page}`, { headers: { accept: "text/html" } });
      expect(res.status, page).toBe(200);
      expect(res.headers.get("content-type")).toContain("text/html");
      const policy = res.headers.get("content-security-policy")!;
      expect(policy).toContain("script-src 'self'");
      expect(policy).toContain("style-src 'self'");
      expect(policy).toContain("connect-src 'self'");
      expect(policy).not.toContain("unsafe-inline");
      expect(policy).toContain("frame-ancestors 'none'");
      expect(res.headers.get("x-frame-options")).toBe("DENY");
      const html = await res.text();
      expect(html).not.toMatch(/<script>|<style>|https?:\/\//);
    }
  });

  it("serves its hashed files gzipped and cacheable forever, with an ETag, uncounted by the rate limit", async () => {
    const html = await (await fetch(`${app.url}/dashboard`)).text();
    const files = [...html.matchAll(/\/dashboard\/assets\/[\w.-]+/g)].map(([file]) => file);
    expect(files.some((f) => f.endsWith(".js")) && files.some((f) => f.endsWith(".css"))).toBe(true);
    for (const file of files) {
      const res = await fetch(`${app.url}${file}`, { headers: { "accept-encoding": "gzip" } });
      expect(res.status, file).toBe(200);
      expect(res.headers.get("cache-control")).toContain("immutable");
      // (fetch would add Cache-Control: no-cache to a conditional request, which asks for the body again)
      const again = await fetch(`${app.url}${file}`, {
        headers: { "if-none-match": res.headers.get("etag")!, "cache-control": "max-age=0" },
      });
      expect(again.status).toBe(304);
    }
    const before = Number((await fetch(`${app.url}/dashboard`)).headers.get("ratelimit-remaining"));
    await fetch(`${app.url}/dashboard/inbox`);
    expect(Number((await fetch(`${app.url}/dashboard`)).headers.get("ratelimit-remaining"))).toBe(before);
    expect((await fetch(`${app.url}/dashboard/assets/missing.js`)).status).toBe(404);
  });
});
