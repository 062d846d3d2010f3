import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

// RFC 6238 as authenticator apps implement it: HMAC-SHA-1, 6 digits, 30-second steps.
const stepSeconds = 30;
const digits = 6;
/** Steps either side of now whose code is accepted, for a phone clock a little off and a code typed at a step's end. */
const windowSteps = 1;
const base32Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/** RFC 4648 base32 without padding: how authenticator apps take a secret typed in or read from a QR code. */
export function base32Encode(bytes: Buffer): string {
  let bits = 0;
  let value = 0;
  let out = "";
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += base32Alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += base32Alphabet[(value << (5 - bits)) & 31];
  return out;
}

export function base32Decode(text: string): Buffer {
  const clean = text.replace(/=+$/, "").toUpperCase();
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const char of clean) {
    const index = base32Alphabet.indexOf(char);
    if (index < 0) throw new Error("Not base32");
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** A new shared secret: 160 bits, the length RFC 4226 recommends for HMAC-SHA-1. */
export function newTotpSecret(): Buffer {
  return randomBytes(20);
}

/** RFC 4226 HOTP: the code for one counter value. */
export function hotp(secret: Buffer, counter: number): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac("sha1", secret).update(message).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, "0");
}

export function totpStep(atMs: number): number {
  return Math.floor(atMs / 1000 / stepSeconds);
}

/**
 * The time step whose code `code` is, within the window around `atMs`, or null. Every candidate is compared in
 * constant time, so the answer's timing says nothing about which step matched or how much of the code did.
 */
export function matchTotp(secret: Buffer, code: string, atMs: number): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const given = Buffer.from(code);
  const now = totpStep(atMs);
  let matched: number | null = null;
  for (let step = now - windowSteps; step <= now + windowSteps; step++) {
    if (timingSafeEqual(Buffer.from(hotp(secret, step)), given) && matched === null) matched = step;
  }
  return matched;
}

/** The otpauth:// URI authenticator apps enrol from (Google Authenticator's Key Uri Format). */
export function otpauthUri(secret: Buffer, issuer: string, account: string): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  const params = new URLSearchParams({
    secret: base32Encode(secret),
    issuer,
    algorithm: "SHA1",
    digits: String(digits),
    period: String(stepSeconds),
  });
  return `otpauth://totp/${label}?${params.toString().replace(/\+/g, "%20")}`;
}
