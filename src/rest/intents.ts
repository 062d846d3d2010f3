import { parse } from "csv-parse/sync";
import express from "express";
import { z } from "zod";
import { AppError } from "../errors.js";
import { assertUtf8Body } from "../http/storable-input.js";
import type { Services } from "../services.js";
import { runOperation } from "./execute.js";
import {
  ClassifyIntentsDocument,
  CreateIntentDocument,
  DeleteIntentDocument,
  ImportIntentExamplesDocument,
  type IntentFieldsFragment,
  ListIntentsDocument,
  UpdateIntentDocument,
} from "./generated.js";
import { objectBody, type RestRoute } from "./route.js";

const IntentRecord = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  agent_type: z.enum(["faq", "support", "smalltalk", "handoff"]),
  urgent: z.boolean(),
  examples: z.array(z.string()),
  updated_at: z.string(),
});

const record = (i: IntentFieldsFragment) => ({
  id: i.id,
  name: i.name,
  description: i.description,
  agent_type: i.agentType,
  urgent: i.urgent,
  examples: i.examples,
  updated_at: i.updatedAt,
});

/** The fields of an intent as GraphQL variables; the resolver validates them. */
function intentVariables(body: Record<string, unknown>) {
  return {
    name: body.name as string,
    description: body.description as string | undefined,
    agentType: (body.agent_type ?? body.agentType) as string | undefined,
    urgent: body.urgent as boolean | undefined,
    examples: body.examples as string[] | undefined,
  };
}

/** A `text,intent` CSV (header row optional) as examples. */
function examplesFromCsv(csv: string): Array<{ text: string; intent: string }> {
  let rows: string[][];
  try {
    rows = parse(csv, { skip_empty_lines: true, trim: true, relax_column_count: false, bom: true });
  } catch (err) {
    throw new AppError("VALIDATION", `The CSV could not be read: ${(err as Error).message}`, [
      { path: "body", message: "invalid CSV" },
    ]);
  }
  const header = rows[0]?.map((c) => c.toLowerCase());
  const textColumn = header?.indexOf("text") ?? -1;
  const intentColumn = Math.max(header?.indexOf("intent") ?? -1, header?.indexOf("category") ?? -1);
  const hasHeader = textColumn >= 0 && intentColumn >= 0;
  const [t, i] = hasHeader ? [textColumn, intentColumn] : [0, 1];
  return rows.slice(hasHeader ? 1 : 0).map((row) => ({ text: row[t] ?? "", intent: row[i] ?? "" }));
}

// A CSV's bytes must be its charset's, as a JSON body's must (its broken bytes would be stored as U+FFFD).
const csvBody = express.text({
  type: ["text/csv", "text/plain", "application/csv"],
  limit: "20mb",
  verify: (req, _res, buf, encoding) => assertUtf8Body(req as express.Request, buf, encoding),
});

export function intentRoutes(services: Services): RestRoute[] {
  return [
    {
      method: "get",
      path: "/api/intents",
      tag: "Intents",
      summary: "The tenant's intents with their examples (the built-in set applies while there are none)",
      response: { status: 200, description: "Intents", schema: z.object({ intents: z.array(IntentRecord) }) },
      errors: [401, 403, 429],
      async handle(req) {
        const { intents } = await runOperation(services, req, ListIntentsDocument, {});
        return { intents: intents.map(record) };
      },
    },
    {
      method: "post",
      path: "/api/intents",
      tag: "Intents",
      summary: "Create an intent with example utterances",
      body: z.object({
        name: z.string(),
        description: z.string().optional(),
        agent_type: z.enum(["faq", "support", "smalltalk", "handoff"]).optional(),
        urgent: z.boolean().optional(),
        examples: z.array(z.string()).optional(),
      }),
      response: { status: 201, description: "Created", schema: IntentRecord },
      errors: [401, 403, 422, 429],
      async handle(req) {
        const { createIntent } = await runOperation(services, req, CreateIntentDocument, intentVariables(objectBody(req.body)));
        return record(createIntent);
      },
    },
    {
      method: "put",
      path: "/api/intents",
      tag: "Intents",
      summary: "Change an intent by `id`; `examples`, when given, replaces its examples",
      body: z.object({ id: z.string(), name: z.string().optional(), examples: z.array(z.string()).optional() }),
      response: { status: 200, description: "Updated", schema: IntentRecord },
      errors: [401, 403, 404, 422, 429],
      async handle(req) {
        const body = objectBody(req.body);
        if (typeof body.id !== "string")
          throw new AppError("VALIDATION", "id is required", [{ path: "id", message: "required" }]);
        const { updateIntent } = await runOperation(services, req, UpdateIntentDocument, {
          id: body.id,
          ...intentVariables(body),
        });
        return record(updateIntent);
      },
    },
    {
      method: "delete",
      path: "/api/intents",
      tag: "Intents",
      summary: "Delete an intent and its examples: `?id=`",
      query: z.object({ id: z.string() }),
      response: { status: 200, description: "Deleted", schema: z.object({ deleted: z.string() }) },
      errors: [401, 403, 404, 422, 429],
      async handle(req) {
        const id = typeof req.query.id === "string" ? req.query.id : "";
        if (!id) throw new AppError("VALIDATION", "id query parameter is required", [{ path: "id", message: "required" }]);
        return (await runOperation(services, req, DeleteIntentDocument, { id })).deleteIntent;
      },
    },
    {
      method: "post",
      path: "/api/intents/import",
      tag: "Intents",
      summary:
        "Bulk import examples: a `text,intent` CSV (Content-Type: text/csv) or JSON `{examples: [{text, intent}], replace?}`",
      body: z.object({ examples: z.array(z.object({ text: z.string(), intent: z.string() })), replace: z.boolean().optional() }),
      response: {
        status: 200,
        description: "Imported",
        schema: z.object({ intents: z.number().int(), created: z.number().int(), examples: z.number().int() }),
      },
      errors: [401, 403, 413, 422, 429],
      before: [csvBody],
      async handle(req) {
        const csv = typeof req.body === "string";
        const body = csv ? {} : objectBody(req.body);
        const examples = csv ? examplesFromCsv(req.body as string) : body.examples;
        const replace = csv ? req.query.replace === "true" : body.replace === true;
        const { importIntentExamples } = await runOperation(services, req, ImportIntentExamplesDocument, {
          examples: examples as Array<{ text: string; intent: string }>,
          replace,
        });
        return importIntentExamples;
      },
    },
    {
      method: "post",
      path: "/api/intents/classify",
      tag: "Intents",
      summary: "Classify up to 1,000 texts with the tenant's classifier: `{texts: [...]}`",
      body: z.object({ texts: z.array(z.string()).max(1000) }),
      response: {
        status: 200,
        description: "One prediction per text, in order",
        schema: z.object({ results: z.array(z.object({ intent: z.string(), confidence: z.number() })) }),
      },
      errors: [401, 403, 422, 429],
      async handle(req) {
        const body = objectBody(req.body);
        const { classifyIntents } = await runOperation(services, req, ClassifyIntentsDocument, { texts: body.texts as string[] });
        return { results: classifyIntents };
      },
    },
  ];
}
