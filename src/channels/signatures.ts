import { createHash, createHmac, timingSafeEqual } from "node:crypto";

export function hmac(algorithm: "sha1" | "sha256", key: string, data: string | Buffer, encoding: "hex" | "base64"): string {
  return createHmac(algorithm, key).update(data).digest(encoding);
}

/**
 * Timing-safe comparison of two strings of any lengths: their SHA-256 digests are compared, so
 * neither the content nor the length of the expected value leaks through timing.
 */
export function safeEqual(received: string | null | undefined, expected: string): boolean {
  if (typeof received !== "string") return false;
  const a = createHash("sha256").update(received).digest();
  const b = createHash("sha256").update(expected).digest();
  return timingSafeEqual(a, b);
}

/** What `channels.webhook_token_hash` holds: a channel is found by its token without storing the token in clear. */
export function webhookTokenHash(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** Meta's `X-Hub-Signature-256: sha256=<hex HMAC-SHA256(app secret, raw body)>` (chat app, page messaging). */
export function verifyMetaSignature(rawBody: Buffer, header: string | undefined, appSecret: string): boolean {
  if (!header?.startsWith("sha256=")) return false;
  return safeEqual(header.slice("sha256=".length).toLowerCase(), hmac("sha256", appSecret, rawBody, "hex"));
}
