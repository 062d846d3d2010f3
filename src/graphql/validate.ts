import type { z } from "zod";
import { AppError } from "../errors.js";

/** Checks a resolver's input against a zod schema; failures are 422 VALIDATION with field details. */
export function parseInput<S extends z.ZodTypeAny>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(withoutNulls(value));
  if (result.success) return result.data;
  const details = result.error.issues.map((issue) => ({ path: issue.path.join("."), message: issue.message }));
  throw new AppError(
    "VALIDATION",
    `Invalid input: ${details.map((d) => `${d.path || "body"} ${d.message}`).join("; ")}`,
    details,
  );
}

/** GraphQL passes omitted optional arguments as null; zod defaults apply to undefined. */
function withoutNulls(value: unknown): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value) || value instanceof Date) return value;
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null));
}
