import type { Request } from "express";
import { AppError } from "../errors.js";
import { storableValue } from "../http/storable-text.js";
import type { WebhookRequest } from "./adapter.js";

// Provider payloads are read defensively: a field of an unexpected type is treated as absent, never trusted.

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

export const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

export const asObject = (v: unknown): Record<string, unknown> => (isObject(v) ? v : {});

/** A string or number field as text (providers send ids as either). */
export function asText(v: unknown): string | null {
  if (typeof v === "string") return v;
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  return null;
}

/** A request header's value; a header sent twice counts by its first value. */
export function headerOf(req: Pick<WebhookRequest, "headers">, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * A reading of a request's body, made once per body: a provider's handshake and its parser read the same body (Slack's
 * URL check, then its events and button presses). Readers only read what they are given.
 */
function oncePerBody<T>(read: (body: Buffer) => T): (req: WebhookRequest) => T {
  const readings = new WeakMap<Buffer, T>();
  return (req) => {
    if (readings.has(req.rawBody)) return readings.get(req.rawBody) as T;
    const value = read(req.rawBody);
    readings.set(req.rawBody, value);
    return value;
  };
}

/** The raw body as JSON with its text made storable, or null when it is not JSON. */
export const jsonValue = oncePerBody((body): unknown => {
  try {
    return storableValue(JSON.parse(body.toString("utf8")));
  } catch {
    return null;
  }
});

/** The raw body as a JSON object with its text made storable, or 422 VALIDATION. */
export function jsonBody(req: WebhookRequest): Record<string, unknown> {
  const body = jsonValue(req);
  if (body === null) {
    throw new AppError("VALIDATION", "Request body is not valid JSON", [{ path: "body", message: "malformed JSON" }]);
  }
  if (!isObject(body)) {
    throw new AppError("VALIDATION", "Request body must be a JSON object", [{ path: "body", message: "object expected" }]);
  }
  return body;
}

/** The raw body as form fields (application/x-www-form-urlencoded), in the order sent, their text made storable. */
export const formBody = oncePerBody(
  (body): Record<string, string> => storableValue(Object.fromEntries(new URLSearchParams(body.toString("utf8")))) ?? {},
);

/** A phone number as E.164 with a leading + (providers send digits, with or without it). */
export function e164(phone: string | null | undefined): string | null {
  const digits = phone?.replace(/[^\d]/g, "");
  return digits && digits.length >= 6 ? `+${digits}` : null;
}

/** A customer known by phone number: replies go to it in E.164; a sender that is no number keeps its raw id. */
export function phoneCustomer(number: string): { id: string; phone: string | null } {
  const phone = e164(number);
  return { id: phone ?? number, phone };
}

/**
 * The query's parameters given once. A parameter given twice (`?token=a&token=b`) arrives as an array, one in brackets
 * as an object: neither is what a provider sends, and reading one as a string crashed the verification; they count as
 * absent.
 */
export function singleQuery(query: Request["query"]): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(query).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
}
