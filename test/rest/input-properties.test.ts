import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restRoutes } from "../../src/rest/index.js";
import type { RestRoute } from "../../src/rest/route.js";
import { startTestApp, type TestApp } from "../helpers/app.js";
import {
  countInputs,
  expectClearAnswer,
  oddJson,
  oddJsonText,
  oddUrlComponent,
  propertyOptions,
  rowCounts,
} from "../helpers/properties.js";

// Every route of the REST shim, fed generated paths, query strings and bodies (wrong types, odd and huge
// strings, NULs, unpaired surrogates, deep nesting, raw bytes) by its owner: the answer is 2xx or a 4xx
// `{error, code}`, and a refused request wrote nothing.

let app: TestApp;
let ownerKey: string;
const counted = countInputs("REST bodies");
// About forty routes: a dozen inputs each keeps the file within a minute on a loaded 2-core machine.
const runsPerRoute = 12;

beforeAll(async () => {
  app = await startTestApp({ RATE_LIMIT_MAX: "1000000" });
  ({ apiKey: ownerKey } = await app.tenant("Property Bank"));
});

afterAll(async () => {
  await app?.close();
});

// Provider webhooks have their own suite (test/channels/webhook-properties.test.ts).
const routes = restRoutes({ config: {} } as never).filter((r) => r.tag !== "Channel webhooks");

const fieldsOf = (route: RestRoute): string[] => Object.keys((route.body as { shape?: object } | undefined)?.shape ?? {});
const queryKeysOf = (route: RestRoute): string[] => Object.keys(route.query?.shape ?? {});

const contentTypes = fc.constantFrom(
  "application/json",
  "application/json",
  "application/json; charset=utf-8",
  "text/csv",
  "text/plain",
  "multipart/form-data; boundary=xyz",
  "multipart/form-data",
  "application/x-www-form-urlencoded",
);

function bodies(route: RestRoute): fc.Arbitrary<string | Blob> {
  const fields = fieldsOf(route);
  return fc.oneof(
    fc
      .dictionary(fields.length ? fc.constantFrom(...fields) : fc.string(), oddJson, { maxKeys: 5 })
      .map((b) => JSON.stringify(b)),
    oddJsonText,
    fc.uint8Array({ maxLength: 64 }).map((bytes) => new Blob([bytes])),
  );
}

function requests(route: RestRoute) {
  const params = route.path.match(/:\w+/g) ?? [];
  const queryKeys = queryKeysOf(route);
  const queryKey = queryKeys.length ? fc.oneof(fc.constantFrom(...queryKeys), oddUrlComponent) : oddUrlComponent;
  return fc.record({
    params: fc.tuple(...params.map(() => oddUrlComponent)),
    query: fc.array(fc.tuple(queryKey, oddUrlComponent), { maxLength: 3 }),
    body: route.method === "get" ? fc.constant(undefined) : fc.option(bodies(route), { nil: undefined }),
    contentType: contentTypes,
  });
}

describe("every REST route answers generated input with 2xx or a 4xx {error, code}", () => {
  it.each(routes.map((r) => [`${r.method.toUpperCase()} ${r.path}`, r] as const))("%s", async (_name, route) => {
    await fc.assert(
      fc.asyncProperty(requests(route), async ({ params, query, body, contentType }) => {
        counted();
        let i = 0;
        const pathname = route.path.replace(/:\w+/g, () => params[i++] ?? "");
        const search = query.length ? `?${query.map(([k, v]) => `${k}=${v}`).join("&")}` : "";
        const before = await rowCounts(app);
        const res = await fetch(`${app.url}${pathname}${search}`, {
          method: route.method.toUpperCase(),
          headers: { authorization: `Bearer ${ownerKey}`, ...(body === undefined ? {} : { "content-type": contentType }) },
          body,
        });
        const text = await res.text();
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          // an event stream or text: judged by its status
        }
        const input = `${route.method} ${pathname}${search} ${contentType} ${typeof body === "string" ? body : "(bytes)"}`;
        expectClearAnswer({ status: res.status, headers: res.headers, body: parsed }, input);
        if (res.status >= 400)
          expect(await rowCounts(app), `no write after ${res.status} for ${input.slice(0, 300)}`).toEqual(before);
      }),
      propertyOptions(runsPerRoute),
    );
  });
});
