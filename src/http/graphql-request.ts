import type { RequestHandler } from "express";
import { AppError } from "../errors.js";

/** The bodies yoga reads: JSON, a GraphQL document, a form, or a multipart upload. */
const graphqlBodies = ["json", "+json", "application/graphql", "application/x-www-form-urlencoded", "multipart/form-data"];

/**
 * What yoga would answer with an empty 415 or a masked 500: a body it cannot read, and GET parameters
 * that are not the JSON they must be. Said as `{error, code}` instead.
 */
export const graphqlRequestGuard: RequestHandler = (req, _res, next) => {
  if (req.method === "POST" && !req.is(graphqlBodies)) {
    throw new AppError(
      "VALIDATION",
      `POST /graphql takes application/json (or application/graphql, a form, or multipart), not ${req.get("content-type") ?? "a body without a Content-Type"}`,
      undefined,
      415,
    );
  }
  if (req.method === "GET") {
    for (const param of ["variables", "extensions"]) {
      const value = req.query[param];
      if (value === undefined) continue;
      try {
        if (typeof value !== "string") throw new Error("repeated");
        JSON.parse(value);
      } catch {
        throw new AppError(
          "VALIDATION",
          `The ${param} parameter must be one JSON object`,
          [{ path: param, message: "malformed JSON" }],
          400,
        );
      }
    }
  }
  next();
};
