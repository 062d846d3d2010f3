import { Router } from "express";
import packageJson from "../../package.json" with { type: "json" };
import type { Config } from "../config.js";
import {
  type JsonSchema,
  type Method,
  type OpenApiDocument,
  type Operation,
  openApiDocument,
  type Parameter,
  type Reference,
  type ResponseObject,
} from "../rest/openapi.js";
import type { RestRoute } from "../rest/route.js";

// The page is self-contained: it must render on machines without internet access, and the policy
// makes the browser refuse anything the page might try to load from elsewhere.
const docsContentSecurityPolicy = "default-src 'none'; style-src 'unsafe-inline'";

/**
 * GET /openapi.json, public so that integrators can generate clients without a key, and outside
 * production GET /docs, a readable page of the same document (a development aid, like GraphiQL).
 */
export function docsRouter(routes: RestRoute[], config: Pick<Config, "NODE_ENV" | "PUBLIC_BASE_URL">): Router {
  const document = openApiDocument(routes, { version: packageJson.version, serverUrl: config.PUBLIC_BASE_URL });
  const router = Router();
  router.get("/openapi.json", (_req, res) => {
    res.json(document);
  });
  if (config.NODE_ENV !== "production") {
    const page = docsPage(document);
    router.get("/docs", (_req, res) => {
      res.setHeader("Content-Security-Policy", docsContentSecurityPolicy);
      res.type("html").send(page);
    });
  }
  return router;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

function schemaBlock(schema: JsonSchema): string {
  return `<details><summary>schema</summary><pre>${escapeHtml(JSON.stringify(schema, null, 2))}</pre></details>`;
}

function typeOf(schema: JsonSchema): string {
  if (Array.isArray(schema.enum)) return `one of ${schema.enum.join(", ")}`;
  const bounds = [
    typeof schema.minimum === "number" ? `≥ ${schema.minimum}` : "",
    typeof schema.maximum === "number" ? `≤ ${schema.maximum}` : "",
  ].filter(Boolean);
  return [String(schema.type ?? "any"), ...bounds].join(" ");
}

function parametersTable(parameters: Parameter[]): string {
  const rows = parameters.map(
    (p) =>
      `<tr><td><code>${escapeHtml(p.name)}</code></td><td>${p.in}</td><td>${p.required ? "yes" : "no"}</td>` +
      `<td>${escapeHtml(typeOf(p.schema))}</td><td>${escapeHtml(p.description ?? "")}</td></tr>`,
  );
  return `<table><tr><th>parameter</th><th>in</th><th>required</th><th>type</th><th>description</th></tr>${rows.join("")}</table>`;
}

function responseItem(document: OpenApiDocument, status: string, response: ResponseObject | Reference): string {
  // Error responses are shared components whose body is the error body shown once at the top.
  if ("$ref" in response) {
    const shared = document.components.responses[response.$ref.split("/").pop()!]!;
    return `<li><b>${status}</b> ${escapeHtml(shared.description)}</li>`;
  }
  const schema = response.content?.["application/json"]?.schema;
  return `<li><b>${status}</b> ${escapeHtml(response.description)}${schema ? schemaBlock(schema) : ""}</li>`;
}

function operationSection(document: OpenApiDocument, method: Method, path: string, operation: Operation): string {
  const auth = operation.security ? "API key" : "no API key";
  const body = operation.requestBody?.content["application/json"].schema;
  return [
    `<section id="${escapeHtml(operation.operationId)}">`,
    `<h3><span class="method ${method}">${method.toUpperCase()}</span> <code>${escapeHtml(path)}</code></h3>`,
    `<p>${escapeHtml(operation.summary)} <span class="auth">(${auth})</span></p>`,
    operation.description ? `<p>${escapeHtml(operation.description)}</p>` : "",
    operation.parameters ? parametersTable(operation.parameters) : "",
    body ? `<h4>Request body</h4>${schemaBlock(body)}` : "",
    "<h4>Responses</h4><ul>",
    ...Object.entries(operation.responses).map(([status, response]) => responseItem(document, status, response)),
    "</ul></section>",
  ].join("\n");
}

function docsPage(document: OpenApiDocument): string {
  const operations = Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ method: method as Method, path, operation })),
  );
  const sections = document.tags.map(({ name }) => {
    const tagged = operations.filter(({ operation }) => operation.tags.includes(name));
    return `<h2>${escapeHtml(name)}</h2>\n${tagged.map((o) => operationSection(document, o.method, o.path, o.operation)).join("\n")}`;
  });
  const title = `${document.info.title} ${document.info.version}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body { font: 15px/1.5 system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; color: #1d2330; }
h2 { border-bottom: 1px solid #d0d5dd; padding-bottom: .25rem; margin-top: 2.5rem; }
section { border: 1px solid #e3e6eb; border-radius: 6px; padding: .25rem 1rem; margin: 1rem 0; }
.method { display: inline-block; min-width: 4rem; text-align: center; border-radius: 4px; color: #fff; font-size: .8rem; padding: .1rem .4rem; }
.get { background: #2f6fbf; } .post { background: #2c8a4b; } .put, .patch { background: #b7791f; } .delete { background: #c53030; }
.auth { color: #667085; }
table { border-collapse: collapse; width: 100%; } th, td { text-align: left; border-bottom: 1px solid #e3e6eb; padding: .25rem .5rem; }
pre { background: #f6f8fa; padding: .75rem; overflow: auto; }
</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(document.info.description)}</p>
<p>The machine-readable contract, for generating clients: <a href="/openapi.json">/openapi.json</a> (OpenAPI ${document.openapi}).</p>
<h2>Error body</h2>
${schemaBlock(document.components.schemas.Error!)}
${sections.join("\n")}
</body>
</html>
`;
}
