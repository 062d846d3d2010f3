import { createHash, randomBytes } from "node:crypto";
import type { PrismaClient } from "../db/generated/prisma/client.js";
import { newId } from "../db/ids.js";
import type { TenantDb } from "../db/tenant-scope.js";
import type { Role } from "./roles.js";

const keyPrefix = "prl_";

export function hashApiKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

export interface IssuedKey {
  id: string;
  key: string;
  prefix: string;
  role: Role;
}

/** Creates a key; its plain text exists only in the return value (shown once, stored hashed). */
export async function issueApiKey(
  db: PrismaClient | TenantDb,
  tenantId: string,
  input: { name: string; role: Role },
): Promise<IssuedKey> {
  const key = `${keyPrefix}${randomBytes(32).toString("base64url")}`;
  const prefix = key.slice(0, keyPrefix.length + 8);
  const id = newId("key");
  await (db as PrismaClient).apiKey.create({
    data: { id, tenantId, name: input.name, prefix, hash: hashApiKey(key), role: input.role },
  });
  return { id, key, prefix, role: input.role };
}

export function looksLikeApiKey(value: string): boolean {
  return value.startsWith(keyPrefix) && value.length > keyPrefix.length + 20;
}
