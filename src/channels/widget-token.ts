import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

// Widget tokens (SPEC "Widget token"): base64url of `tenantId:channelId:nonce:signature`, where the
// signature is the HMAC-SHA256 of `tenantId:channelId:nonce` under the widget channel's secret, in
// base64url. Nothing but the channel's secret makes one valid, so rotating the secret revokes them all.

/**
 * A new token for a widget channel. It needs nothing but node:crypto on purpose: a tenant's server
 * copies it to mint tokens itself with the secret it gave the channel (README, "Widget").
 */
export function createWidgetToken(tenantId: string, channelId: string, secret: string): string {
  const nonce = randomBytes(16).toString("base64url");
  const payload = `${tenantId}:${channelId}:${nonce}`;
  const signature = createHmac("sha256", secret).update(payload).digest("base64url");
  return Buffer.from(`${payload}:${signature}`).toString("base64url");
}

export interface WidgetTokenClaims {
  tenantId: string;
  channelId: string;
  nonce: string;
  signature: string;
}

const maxTokenLength = 512;

/** base64url that decodes and encodes back to itself: one token has one spelling, so no altered copy passes. */
function decodeCanonical(text: string): Buffer | null {
  const bytes = Buffer.from(text, "base64url");
  return bytes.length && bytes.toString("base64url") === text ? bytes : null;
}

/** What a token says, before any check of its signature; null when it is not shaped like a token. */
export function readWidgetToken(token: string | undefined): WidgetTokenClaims | null {
  if (!token || token.length > maxTokenLength) return null;
  const parts = decodeCanonical(token)?.toString("utf8").split(":");
  if (parts?.length !== 4 || parts.some((part) => !part)) return null;
  const [tenantId, channelId, nonce, signature] = parts as [string, string, string, string];
  return { tenantId, channelId, nonce, signature };
}

/** Whether the claims were signed with this secret, compared in constant time. */
export function widgetTokenSignedWith(claims: WidgetTokenClaims, secret: string): boolean {
  const given = decodeCanonical(claims.signature);
  const expected = createHmac("sha256", secret).update(`${claims.tenantId}:${claims.channelId}:${claims.nonce}`).digest();
  return given !== null && given.length === expected.length && timingSafeEqual(given, expected);
}
