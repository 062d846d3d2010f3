import type { Request, RequestHandler, Response } from "express";
import { z } from "zod";
import { AppError } from "../errors.js";

/** A handler's answer when its status depends on the request (e.g. 201 for manual text, 202 for a crawl). */
export class Reply {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {}
}

/**
 * A REST route of the spec. The handler runs GraphQL operations (src/rest/execute.ts) and reshapes
 * their result; the declared shapes feed the OpenAPI document and are not a second validation.
 */
export interface RestRoute {
  method: "get" | "post" | "put" | "patch" | "delete";
  /** Express path syntax, e.g. `/api/conversations/:id`. */
  path: string;
  summary: string;
  tag: string;
  /** Who may call it: an API key (default), or the route authenticates itself (webhooks, widget). */
  auth?: "apiKey" | "self";
  query?: z.ZodObject;
  body?: z.ZodType;
  response: {
    status: number;
    description: string;
    schema?: z.ZodType;
    /** The body per media type, for a route that answers other than JSON (a CSV download); else `schema` as JSON. */
    media?: Record<string, z.ZodType>;
  };
  /** Other success statuses a Reply may carry, for the OpenAPI document. */
  alsoReplies?: Array<{ status: number; description: string }>;
  errors?: number[];
  /** Route-specific middleware, e.g. a multipart parser. */
  before?: RequestHandler[];
  handle(req: Request, res: Response): Promise<unknown>;
}

/** The `page` and `limit` query parameters of a listing, as documented. */
export const pagingQuery = {
  page: z.number().int().min(1).optional().describe("1-based page (default 1)"),
  limit: z.number().int().min(1).max(100).optional().describe("page size (default 20, max 100)"),
};

/** Query-string values as GraphQL variables: whole numbers become Int, the rest stays text for the schema to judge. */
export function queryVariable(value: unknown): unknown {
  if (value === undefined || value === "") return undefined;
  if (typeof value === "string" && /^-?\d{1,15}$/.test(value)) return Number(value);
  return value;
}

/** A query-string value for a text variable: kept as text even when it is all digits (a phone number searched for). */
export function textVariable(value: unknown): string | undefined {
  if (value === undefined || value === "") return undefined;
  return typeof value === "string" ? value : String(value);
}

/** A query-string flag: `true` and `false` as booleans; anything else goes on for the schema to refuse. */
export function booleanVariable(value: unknown): boolean | undefined {
  if (value === undefined || value === "") return undefined;
  return value === "true" ? true : value === "false" ? false : (value as boolean);
}

/** The JSON body as an object, or 422: the fields are then GraphQL variables, checked by the resolver. */
export function objectBody(body: unknown): Record<string, unknown> {
  if (!body || typeof body !== "object" || Array.isArray(body)) {
    throw new AppError("VALIDATION", "Request body must be a JSON object", [{ path: "body", message: "expected an object" }]);
  }
  return body as Record<string, unknown>;
}

/** The `id` of a PUT body, or 422. */
export function bodyId(body: Record<string, unknown>): string {
  if (typeof body.id !== "string" || !body.id)
    throw new AppError("VALIDATION", "id is required", [{ path: "id", message: "required" }]);
  return body.id;
}
