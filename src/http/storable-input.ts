import type { Request, RequestHandler } from "express";
import { AppError } from "../errors.js";
import { storableValue, unstorableInput } from "./storable-text.js";

/** Where providers post (channel webhooks, voice callbacks): their payloads are cleaned, never refused. */
export const providerPath = /^\/api\/(channels\/|v1\/(channels|voice)\/)/;

function decodedPath(req: Request): string {
  try {
    return decodeURIComponent(req.path);
  } catch {
    throw new AppError(
      "VALIDATION",
      "The request path is not valid percent-encoded UTF-8",
      [{ path: "path", message: "invalid percent-encoding" }],
      400,
    );
  }
}

function refuse(problem: { path: string; message: string } | null): void {
  if (!problem) return;
  const field = { path: problem.path || "body", message: problem.message };
  throw new AppError("VALIDATION", `Invalid request: ${field.path} ${field.message}`, [field]);
}

/**
 * Input nothing can store is answered before any of it is written: a caller's path and query with a NUL, an unpaired
 * surrogate or absurd nesting get 422 VALIDATION naming the field, checked as soon as a request arrives, before any
 * router reads a parameter of them (the widget's, the dashboard's and single sign-on's come before the JSON parser;
 * a NUL in a tenant id reached the database from there). A provider's query string is cleaned instead.
 */
export const storableAddress: RequestHandler = (req, _res, next) => {
  if (providerPath.test(req.originalUrl)) {
    Object.defineProperty(req, "query", { value: storableValue(req.query) ?? {}, configurable: true, enumerable: true });
  } else {
    refuse(unstorableInput(decodedPath(req), "path") ?? unstorableInput(req.query, "query"));
  }
  next();
};

/**
 * The same for a parsed body, after its parser. A provider's body is never refused: kept as bytes for its signature, it
 * is cleaned where the channel reads it.
 */
export const storableBody: RequestHandler = (req, _res, next) => {
  if (!providerPath.test(req.originalUrl) && !Buffer.isBuffer(req.body)) refuse(unstorableInput(req.body, ""));
  next();
};

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * For the JSON parser's `verify`: a caller's UTF-8 body must be UTF-8, rather than have its broken bytes
 * quietly turned into U+FFFD. Providers' bytes are kept as sent, for their signatures.
 */
export function assertUtf8Body(req: Request, body: Buffer, encoding: string): void {
  if (providerPath.test(req.originalUrl) || !/^utf-?8$/i.test(encoding)) return;
  try {
    utf8.decode(body);
  } catch {
    throw new AppError("VALIDATION", "Request body is not valid UTF-8", [{ path: "body", message: "invalid UTF-8" }]);
  }
}
