import { createHash } from "node:crypto";

/** The previous hash of a tenant's first record. */
export const genesisHash = "0".repeat(64);

/** What each record's hash covers: every column but the hash itself, in this shape. */
export interface ChainedFields {
  id: string;
  tenantId: string;
  seq: number;
  /** ISO 8601 with milliseconds, UTC (`2026-11-25T13:45:49.123Z`). */
  createdAt: string;
  actorKind: string;
  actorId: string | null;
  actorLabel: string | null;
  actorRole: string | null;
  ip: string | null;
  action: string;
  targetType: string | null;
  targetId: string | null;
  before: unknown;
  after: unknown;
  details: unknown;
  prevHash: string;
}

/**
 * JSON with object keys sorted (by UTF-16 code units) and no whitespace, the way RFC 8785 (JCS) orders
 * them: the same value always gives the same text, whatever order the database returns keys in.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** sha256, hex, of the record's canonical JSON. */
export function recordHash(fields: ChainedFields): string {
  return createHash("sha256").update(canonicalJson(fields), "utf8").digest("hex");
}
