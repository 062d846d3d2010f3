import { createHmac, timingSafeEqual } from "node:crypto";

// Deliveries older or newer than this are refused: a captured request cannot be replayed later.
const toleranceSeconds = 5 * 60;

/**
 * Checks a Parley event notification and returns its event. `headers` are the request's (lower-case names),
 * `body` the raw body as a string, exactly as received (parse it only after checking it).
 * Throws when the request is not a genuine, fresh delivery.
 */
export function verifyParleyWebhook(secret, headers, body, nowMs = Date.now()) {
  const id = headers["webhook-id"];
  const timestamp = headers["webhook-timestamp"];
  const signatures = headers["webhook-signature"];
  if (!id || !timestamp || !signatures) throw new Error("missing webhook-id, webhook-timestamp or webhook-signature");
  if (!/^\d+$/.test(timestamp) || Math.abs(nowMs / 1000 - Number(timestamp)) > toleranceSeconds) {
    throw new Error("timestamp outside the replay window");
  }
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  const expected = createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest();
  const valid = signatures.split(" ").some((entry) => {
    const [version, signature] = entry.split(",");
    const given = Buffer.from(signature ?? "", "base64");
    return version === "v1" && given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!valid) throw new Error("invalid signature");
  // The same event may arrive more than once (a retry after a lost answer): act on each webhook-id once.
  return JSON.parse(body);
}
