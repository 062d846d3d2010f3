import { z } from "zod";
import type { ErrorCode } from "../errors.js";
import type { RestRoute } from "./route.js";

export type JsonSchema = Record<string, unknown>;

export interface Reference {
  $ref: string;
}

export interface Parameter {
  name: string;
  in: "path" | "query";
  required: boolean;
  description?: string;
  schema: JsonSchema;
}

export interface ResponseObject {
  description: string;
  headers: Record<string, Reference>;
  content?: Record<string, { schema: JsonSchema }>;
}

export interface Operation {
  operationId: string;
  tags: string[];
  summary: string;
  description?: string;
  security?: Array<Record<string, string[]>>;
  parameters?: Parameter[];
  requestBody?: { required: boolean; content: { "application/json": { schema: JsonSchema } } };
  responses: Record<string, ResponseObject | Reference>;
}

export type Method = RestRoute["method"];

export interface OpenApiDocument {
  openapi: "3.1.0";
  info: { title: string; version: string; description: string };
  servers?: Array<{ url: string }>;
  tags: Array<{ name: string; description?: string }>;
  paths: Record<string, Partial<Record<Method, Operation>>>;
  components: {
    schemas: Record<string, JsonSchema>;
    responses: Record<string, ResponseObject>;
    headers: Record<string, { description: string; schema: JsonSchema }>;
    securitySchemes: Record<string, Record<string, string>>;
  };
}

/** What the document needs of a route: everything but its handler, plus an optional longer text. */
type Documented = Omit<RestRoute, "handle"> & { description?: string };

// An object literal typed as Record<ErrorCode, …> fails to compile when a code is added or removed.
const errorCodes = Object.keys({
  AUTH_INVALID: true,
  FORBIDDEN: true,
  NOT_FOUND: true,
  VALIDATION: true,
  RATE_LIMIT: true,
  INTERNAL: true,
  EXTERNAL: true,
} satisfies Record<ErrorCode, true>) as [ErrorCode, ...ErrorCode[]];

const ErrorBody = z.object({
  error: z.string().describe("readable message"),
  code: z.enum(errorCodes),
  details: z
    .array(z.object({ path: z.string(), message: z.string() }))
    .optional()
    .describe("the offending fields, for VALIDATION"),
});

const errorResponses: Record<number, { name: string; code: ErrorCode; description: string }> = {
  401: { name: "Unauthorized", code: "AUTH_INVALID", description: "AUTH_INVALID: missing, unknown or revoked API key" },
  403: { name: "Forbidden", code: "FORBIDDEN", description: "FORBIDDEN: the key's role lacks the permission" },
  404: { name: "NotFound", code: "NOT_FOUND", description: "NOT_FOUND: no such resource in this tenant" },
  413: { name: "PayloadTooLarge", code: "VALIDATION", description: "VALIDATION: the request body is larger than 1 MiB" },
  422: {
    name: "ValidationFailed",
    code: "VALIDATION",
    description: "VALIDATION: malformed JSON or invalid fields, listed in details",
  },
  429: {
    name: "RateLimited",
    code: "RATE_LIMIT",
    description: "RATE_LIMIT: too many requests in the window; Retry-After gives the seconds to wait",
  },
  500: { name: "InternalError", code: "INTERNAL", description: "INTERNAL: unexpected failure" },
  502: { name: "ExternalError", code: "EXTERNAL", description: "EXTERNAL: a third-party service failed" },
};

const rateLimitHeaders: Record<string, Reference> = {
  "RateLimit-Limit": { $ref: "#/components/headers/RateLimit-Limit" },
  "RateLimit-Remaining": { $ref: "#/components/headers/RateLimit-Remaining" },
  "RateLimit-Reset": { $ref: "#/components/headers/RateLimit-Reset" },
};

const apiKeySecurity: Array<Record<string, string[]>> = [{ bearer: [] }, { apiKey: [] }];

const GraphQLRequest = z.object({
  query: z.string(),
  variables: z.record(z.string(), z.unknown()).optional(),
  operationName: z.string().optional(),
});

const GraphQLResult = z.object({
  data: z.record(z.string(), z.unknown()).nullable().optional(),
  errors: z
    .array(
      z.object({
        message: z.string(),
        path: z.array(z.union([z.string(), z.number()])).optional(),
        extensions: z.object({ code: z.enum(errorCodes), details: ErrorBody.shape.details }),
      }),
    )
    .optional(),
});

const graphqlEndpoint: Documented = {
  method: "post",
  path: "/graphql",
  tag: "GraphQL",
  summary: "Run a GraphQL query or mutation",
  description:
    "The whole API, of which the REST routes are a reshaped part. The schema is schema.graphql in the repository " +
    "and answers introspection here; outside production, GET /graphql opens GraphiQL. " +
    "Errors carry the REST codes in errors[].extensions.code.",
  body: GraphQLRequest,
  response: { status: 200, description: "The GraphQL result: data, errors, or both", schema: GraphQLResult },
  errors: [401, 422, 429],
};

function jsonSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    io,
    // z.int() bounds itself to the safe integers, which as a documented limit is only noise.
    override: ({ jsonSchema }) => {
      if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
      if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
    },
  });
  return rest;
}

function errorResponse(status: number, known: { code: ErrorCode; description: string }): ResponseObject {
  return {
    description: known.description,
    headers:
      status === 429 ? { ...rateLimitHeaders, "Retry-After": { $ref: "#/components/headers/Retry-After" } } : rateLimitHeaders,
    content: {
      "application/json": {
        schema: { allOf: [{ $ref: "#/components/schemas/Error" }, { properties: { code: { const: known.code } } }] },
      },
    },
  };
}

/** `/api/conversations/:id` → `getConversationsById`: stable names for generated clients. */
function operationId(method: Method, path: string): string {
  const words = path
    .split("/")
    .filter((segment) => segment && segment !== "api")
    .flatMap((segment) => (segment.startsWith(":") ? ["by", segment.slice(1)] : segment.split(/[^A-Za-z0-9]+/)));
  return method + words.map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join("");
}

function queryParameters(query: z.ZodObject): Parameter[] {
  const schema = jsonSchema(query, "input") as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(schema.properties ?? {}).map(([name, { description, ...property }]) => ({
    name,
    in: "query",
    required: schema.required?.includes(name) ?? false,
    ...(typeof description === "string" ? { description } : {}),
    schema: property,
  }));
}

function operation(route: Documented): Operation {
  if (/[*?(){}]/.test(route.path)) throw new Error(`${route.path}: only :name parameters are supported in documented paths`);
  const pathParameters = [...route.path.matchAll(/:(\w+)/g)].map((match) => match[1]!);
  const parameters: Parameter[] = [
    ...pathParameters.map((name) => ({ name, in: "path" as const, required: true, schema: { type: "string" } })),
    ...(route.query ? queryParameters(route.query) : []),
  ];
  // The JSON body parser answers 413 before any route runs, so every route with a body can get it.
  const errorStatuses = new Set([...(route.errors ?? []), ...(route.body ? [413] : [])]);
  const success: ResponseObject = { description: route.response.description, headers: rateLimitHeaders };
  const media = route.response.media ?? (route.response.schema ? { "application/json": route.response.schema } : {});
  if (Object.keys(media).length) {
    success.content = Object.fromEntries(
      Object.entries(media).map(([type, schema]) => [type, { schema: jsonSchema(schema, "output") }]),
    );
  }
  const responses: Operation["responses"] = { [route.response.status]: success };
  for (const other of route.alsoReplies ?? []) responses[other.status] = { ...success, description: other.description };
  for (const status of [...errorStatuses].sort((a, b) => a - b)) {
    const known = errorResponses[status];
    if (!known) throw new Error(`${route.method} ${route.path} lists HTTP ${status}, which no error code answers`);
    responses[status] = { $ref: `#/components/responses/${known.name}` };
  }
  const selfAuthenticated = route.auth === "self";
  return {
    operationId: operationId(route.method, route.path),
    tags: [route.tag],
    summary: route.summary,
    ...(route.description || selfAuthenticated
      ? { description: route.description ?? "Authenticated by the caller's signature or token, not by an API key." }
      : {}),
    ...(selfAuthenticated ? {} : { security: apiKeySecurity }),
    ...(parameters.length ? { parameters } : {}),
    ...(route.body
      ? {
          requestBody: {
            required: !route.body.safeParse(undefined).success,
            content: { "application/json": { schema: jsonSchema(route.body, "input") } },
          },
        }
      : {}),
    responses,
  };
}

/** The OpenAPI 3.1 contract of the REST routes (and the GraphQL endpoint), made from the same route table that serves them. */
export function openApiDocument(
  routes: readonly Documented[],
  options: { version: string; serverUrl?: string },
): OpenApiDocument {
  const document: OpenApiDocument = {
    openapi: "3.1.0",
    info: {
      title: "Parley API",
      version: options.version,
      description:
        "Multi-tenant conversational AI service. Send the tenant's API key as Authorization: Bearer <key> or as x-api-key. " +
        "Errors are JSON {error, code, details?}. Every API response carries RateLimit-Limit, RateLimit-Remaining and " +
        "RateLimit-Reset; a limited caller gets 429 RATE_LIMIT with Retry-After.",
    },
    ...(options.serverUrl ? { servers: [{ url: options.serverUrl }] } : {}),
    tags: [],
    paths: {},
    components: {
      schemas: { Error: jsonSchema(ErrorBody, "output") },
      responses: Object.fromEntries(
        Object.entries(errorResponses).map(([status, known]) => [known.name, errorResponse(Number(status), known)]),
      ),
      headers: {
        "RateLimit-Limit": { description: "requests allowed in the window", schema: { type: "integer" } },
        "RateLimit-Remaining": { description: "requests left in the current window", schema: { type: "integer" } },
        "RateLimit-Reset": { description: "seconds until the window resets", schema: { type: "integer" } },
        "Retry-After": { description: "seconds to wait before retrying", schema: { type: "integer" } },
      },
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "Authorization: Bearer <API key>" },
        apiKey: { type: "apiKey", in: "header", name: "x-api-key", description: "x-api-key: <API key>" },
      },
    },
  };
  const operationIds = new Set<string>();
  for (const route of [...routes, graphqlEndpoint]) {
    const documented = operation(route);
    if (operationIds.has(documented.operationId))
      throw new Error(`${route.method} ${route.path}: operationId ${documented.operationId} is taken`);
    operationIds.add(documented.operationId);
    const path = route.path.replace(/:(\w+)/g, "{$1}");
    document.paths[path] = { ...document.paths[path], [route.method]: documented };
    if (!document.tags.some((tag) => tag.name === route.tag)) document.tags.push({ name: route.tag });
  }
  return document;
}
