import { describe, expect, it } from "vitest";
import { base32Decode, base32Encode, hotp, matchTotp, otpauthUri, totpStep } from "../../src/agents/totp.js";

// RFC 6238 Appendix B, SHA-1: the 8-digit reference values, of which an authenticator app shows the last 6.
const rfcSecret = Buffer.from("12345678901234567890");
const rfcVectors: Array<[number, string]> = [
  [59, "94287082"],
  [1111111109, "07081804"],
  [1111111111, "14050471"],
  [1234567890, "89005924"],
  [2000000000, "69279037"],
  [20000000000, "65353130"],
];

describe("TOTP (RFC 6238)", () => {
  it.each(rfcVectors)("gives the reference code at %i s", (seconds, reference) => {
    expect(hotp(rfcSecret, totpStep(seconds * 1000))).toBe(reference.slice(-6));
  });

  it("accepts the codes of one step either side of now and names the step, and nothing further", () => {
    const now = 1_700_000_000_000;
    const step = totpStep(now);
    for (const offset of [-1, 0, 1]) expect(matchTotp(rfcSecret, hotp(rfcSecret, step + offset), now)).toBe(step + offset);
    for (const offset of [-2, 2]) expect(matchTotp(rfcSecret, hotp(rfcSecret, step + offset), now)).toBeNull();
    expect(matchTotp(rfcSecret, "12345", now)).toBeNull();
    expect(matchTotp(rfcSecret, "abcdef", now)).toBeNull();
  });

  it("encodes secrets in RFC 4648 base32 and back", () => {
    // RFC 4648 section 10, without padding.
    expect(base32Encode(Buffer.from("foobar"))).toBe("MZXW6YTBOI");
    expect(base32Decode("MZXW6YTBOI").toString()).toBe("foobar");
    expect(base32Encode(rfcSecret)).toBe("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ");
  });

  it("makes the otpauth:// URI authenticator apps enrol from", () => {
    const uri = new URL(otpauthUri(rfcSecret, "Parley (Example Bank)", "sam@bank.example"));
    expect(uri.protocol).toBe("otpauth:");
    expect(uri.host).toBe("totp");
    expect(decodeURIComponent(uri.pathname)).toBe("/Parley (Example Bank):sam@bank.example");
    expect(Object.fromEntries(uri.searchParams)).toEqual({
      secret: "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ",
      issuer: "Parley (Example Bank)",
      algorithm: "SHA1",
      digits: "6",
      period: "30",
    });
  });
});
