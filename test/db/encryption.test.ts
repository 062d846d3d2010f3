import { readFileSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadSecretsKey, SecretBox } from "../../src/db/encryption.js";
import { testTempDir } from "../helpers/temp.js";

const dir = testTempDir("parley-keys");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("secrets at rest", () => {
  it("seals with AES-256-GCM: the ciphertext hides the text, differs each time, and opens back", () => {
    const box = new SecretBox(loadSecretsKey(undefined, dir));
    const credentials = { access_token: "EAAG-very-secret", app_secret: "shh" };
    const a = box.sealJson(credentials);
    const b = box.sealJson(credentials);
    expect(a).not.toBe(b);
    expect(a).not.toContain("very-secret");
    expect(box.openJson(a)).toEqual(credentials);
  });

  it("refuses a tampered ciphertext or another key", () => {
    const box = new SecretBox(loadSecretsKey(undefined, dir));
    const sealed = box.seal("token");
    const [v, iv, tag, body] = sealed.split(":");
    const flipped = `${body![0] === "A" ? "B" : "A"}${body!.slice(1)}`;
    expect(() => box.open([v, iv, tag, flipped].join(":"))).toThrow();
    const other = new SecretBox(Buffer.alloc(32, 7));
    expect(() => other.open(sealed)).toThrow();
  });

  it("generates the key into DATA_DIR once (owner-only file) and prefers SECRETS_KEY when set", () => {
    const first = loadSecretsKey(undefined, dir);
    expect(loadSecretsKey(undefined, dir).equals(first)).toBe(true);
    const file = path.join(dir, "secrets.key");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(Buffer.from(readFileSync(file, "utf8").trim(), "base64").equals(first)).toBe(true);
    const configured = Buffer.alloc(32, 1);
    expect(loadSecretsKey(configured.toString("hex"), dir).equals(configured)).toBe(true);
    expect(loadSecretsKey(configured.toString("base64"), dir).equals(configured)).toBe(true);
    expect(() => new SecretBox(Buffer.alloc(16))).toThrow(/32 bytes/);
  });
});
