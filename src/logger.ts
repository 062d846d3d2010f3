import pino, { type DestinationStream, type LogFn, type Logger } from "pino";
import { redactPII } from "./ai/redact.js";
import type { Config } from "./config.js";

// Deeper than any log line the service writes; past it a value is dropped rather than written unmasked.
const maxDepth = 8;

const isPlainObject = (value: object) => {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
};

/**
 * A log argument with every string passed through redactPII: customer text reaches the logs inside
 * errors (a model server or the database quoting what it was sent) and anything else a caller logs.
 * Other class instances (requests, responses) are left to the logger's serializers, which keep
 * nothing of their bodies.
 */
function masked(value: unknown, depth = 0, seen = new WeakSet<object>()): unknown {
  if (typeof value === "string") return redactPII(value).text;
  if (value === null || typeof value !== "object") return value;
  if (depth > maxDepth) return "[too deep]";
  if (seen.has(value)) return "[circular]";
  seen.add(value);
  if (value instanceof Error) return maskedError(value, depth, seen);
  if (Array.isArray(value)) return value.map((item) => masked(item, depth + 1, seen));
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, masked(item, depth + 1, seen)]));
}

/**
 * A copy of the error, of the same class, with its own properties masked (message, stack, cause, a
 * provider's error body), so that the logger's error serializer still sees an error and names its type.
 */
function maskedError(error: Error, depth: number, seen: WeakSet<object>): Error {
  const copy = Object.create(Object.getPrototypeOf(error)) as Error;
  for (const key of Reflect.ownKeys(error)) {
    const descriptor = Object.getOwnPropertyDescriptor(error, key)!;
    if ("value" in descriptor) descriptor.value = masked(descriptor.value, depth + 1, seen);
    Object.defineProperty(copy, key, descriptor);
  }
  return copy;
}

function maskLogArguments(this: Logger, args: Parameters<LogFn>, method: LogFn): void {
  (method as (...args: unknown[]) => void).apply(
    this,
    (args as unknown[]).map((arg) => masked(arg)),
  );
}

/** The process's logger: JSON lines, no credentials, and no customer card numbers, accounts or contact details. */
export function createLogger(config: Pick<Config, "LOG_LEVEL">, destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level: config.LOG_LEVEL,
    redact: { paths: ["req.headers.authorization", 'req.headers["x-api-key"]', "*.apiKey", "*.password"], remove: true },
    hooks: { logMethod: maskLogArguments },
  };
  return destination ? pino(options, destination) : pino(options);
}
