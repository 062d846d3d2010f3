import type { ErrorRequestHandler, Response } from "express";
import { databaseBusy } from "../db/busy.js";
import { AppError, RateLimitError } from "../errors.js";

export function sendError(res: Response, error: AppError): void {
  if (error instanceof RateLimitError) res.setHeader("Retry-After", String(error.retryAfterS));
  res.status(error.status).json({
    error: error.message,
    code: error.code,
    ...(error.details ? { details: error.details } : {}),
  });
}

interface BodyParserError extends Error {
  type?: string;
  status?: number;
  limit?: number;
  /** http-errors' flag: the message is meant for the client. */
  expose?: boolean;
  /** zlib's code when a compressed body is corrupt. */
  code?: string;
}

/** The one place an HTTP error body is made: `{error, code}` (+ `details`), never a stack trace. */
export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  if (res.headersSent) {
    req.log?.error({ err }, "error after the response started");
    res.end();
    return;
  }
  if (err instanceof AppError) {
    if (err.status >= 500) req.log?.error({ err }, "request failed");
    sendError(res, err);
    return;
  }
  const busy = databaseBusy(err);
  if (busy) {
    req.log?.warn({ err }, "no database connection free in time");
    sendError(res, busy);
    return;
  }
  const parserError = err as BodyParserError;
  if (parserError.type === "entity.too.large") {
    sendError(res, new AppError("VALIDATION", `Request body is larger than ${parserError.limit} bytes`, undefined, 413));
    return;
  }
  if (parserError.type === "entity.parse.failed") {
    sendError(res, new AppError("VALIDATION", "Request body is not valid JSON", [{ path: "body", message: "malformed JSON" }]));
    return;
  }
  if (parserError.type === "encoding.unsupported" || parserError.type === "charset.unsupported") {
    sendError(res, new AppError("VALIDATION", parserError.message, undefined, 415));
    return;
  }
  if (parserError.code?.startsWith("Z_")) {
    const encoding = req.get("content-encoding");
    sendError(res, new AppError("VALIDATION", `Request body is not valid ${encoding} data`, undefined, 400));
    return;
  }
  if (parserError.expose && parserError.status && parserError.status >= 400 && parserError.status < 500) {
    // Any other refusal by Express or the body parser (an undecodable path, an aborted body): the caller's.
    sendError(res, new AppError("VALIDATION", parserError.message, undefined, parserError.status));
    return;
  }
  req.log?.error({ err }, "unexpected error");
  sendError(res, new AppError("INTERNAL", "Internal server error"));
};
