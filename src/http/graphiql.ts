import { createHash } from "node:crypto";
import { gzipSync } from "node:zlib";
import { renderGraphiQL } from "@graphql-yoga/render-graphiql";
import type { Request, RequestHandler } from "express";
import type { Config } from "../config.js";
import { AppError } from "../errors.js";
import { sendCachedAsset } from "./cached-asset.js";

interface GraphiQLPage {
  html: Buffer;
  gzipped: Buffer;
  etag: string;
  contentSecurityPolicy: string;
}

/**
 * GraphiQL with its scripts, styles, fonts and editor workers inside the page (`@graphql-yoga/render-graphiql`),
 * so that it works on a machine without internet access. The policy lets the page run its one inline script
 * (by hash), its editor's workers (blob: URLs it makes itself) and its inline styles and fonts, and talk to this
 * service only.
 */
function buildGraphiQLPage(): GraphiQLPage {
  const text = renderGraphiQL({ title: "Parley GraphQL" });
  const scripts = [...text.matchAll(/<script>([\s\S]*?)<\/script>/g)].map(
    ([, body]) => `'sha256-${createHash("sha256").update(body!).digest("base64")}'`,
  );
  const html = Buffer.from(text);
  return {
    html,
    gzipped: gzipSync(html),
    etag: `"${createHash("sha256").update(html).digest("base64url").slice(0, 22)}"`,
    contentSecurityPolicy: [
      "default-src 'none'",
      `script-src ${scripts.join(" ")}`,
      "worker-src blob:",
      "style-src 'unsafe-inline'",
      "font-src data:",
      "img-src data:",
      "connect-src 'self'",
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join("; "),
  };
}

/** A browser asking for a page rather than a GraphQL client for a result. */
const wantsPage = (req: Request) =>
  req.accepts(["application/graphql-response+json", "application/json", "text/event-stream", "text/html"]) === "text/html";

/**
 * GET /graphql from a browser: GraphiQL outside production (a development aid, like /docs); in production a JSON
 * answer saying where operations go, rather than yoga's empty 406. A middleware rather than a GET route, whose
 * router would answer the CORS preflight of /graphql itself.
 */
export function graphiqlPage(config: Pick<Config, "NODE_ENV">): RequestHandler {
  let page: GraphiQLPage | undefined;
  return (req, res, next) => {
    if (req.method !== "GET" || req.path !== "/graphql" || !wantsPage(req)) return next();
    if (config.NODE_ENV === "production") {
      throw new AppError("NOT_FOUND", "GraphiQL is not served in production: send GraphQL operations to POST /graphql");
    }
    page ??= buildGraphiQLPage();
    res.setHeader("Content-Security-Policy", page.contentSecurityPolicy);
    res.setHeader("Content-Type", "text/html; charset=utf-8");
    sendCachedAsset(req, res, { body: page.html, gzipped: page.gzipped, etag: page.etag });
  };
}
