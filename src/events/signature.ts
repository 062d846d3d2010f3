import { createHmac, randomBytes } from "node:crypto";

const secretPrefix = "whsec_";

/** A signing secret in the Standard Webhooks form: `whsec_` and 24 random bytes in base64. */
export function generateSigningSecret(): string {
  return `${secretPrefix}${randomBytes(24).toString("base64")}`;
}

/**
 * The `webhook-signature` header of the Standard Webhooks convention: `v1,` and the base64 HMAC-SHA256 of
 * `${id}.${timestamp}.${body}`, keyed with the secret's bytes (the base64 after `whsec_`).
 */
export function signWebhook(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice(secretPrefix.length), "base64");
  return `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64")}`;
}
