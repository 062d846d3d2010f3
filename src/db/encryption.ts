import { createCipheriv, createDecipheriv, createHmac, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const version = "v1";

/** AES-256-GCM for secrets at rest (channel credentials, widget secrets). */
export class SecretBox {
  private readonly key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error("The secrets key must be 32 bytes (base64 or hex encoded)");
    this.key = key;
  }

  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return [version, iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), body.toString("base64url")].join(":");
  }

  open(sealed: string): string {
    const [v, iv, tag, body] = sealed.split(":");
    if (v !== version || !iv || !tag || body === undefined) throw new Error("Not a sealed secret");
    const decipher = createDecipheriv("aes-256-gcm", this.key, Buffer.from(iv, "base64url"));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
  }

  sealJson(value: unknown): string {
    return this.seal(JSON.stringify(value));
  }

  openJson<T>(sealed: string): T {
    return JSON.parse(this.open(sealed)) as T;
  }

  /**
   * A short keyed digest of a secret: two equal fingerprints mean the same secret, and without the key nobody can
   * test guesses against one (a plain hash of a short secret could be brute-forced). The audit trail shows them.
   */
  fingerprint(secret: string): string {
    return createHmac("sha256", this.key).update("fingerprint:").update(secret, "utf8").digest("hex").slice(0, 12);
  }
}

function decodeKey(text: string): Buffer {
  const trimmed = text.trim();
  return /^[0-9a-f]{64}$/i.test(trimmed) ? Buffer.from(trimmed, "hex") : Buffer.from(trimmed, "base64");
}

/**
 * The key comes from SECRETS_KEY; without it one is generated into DATA_DIR on first start so that
 * `npm start` works with no setup. Several instances must share SECRETS_KEY.
 */
export function loadSecretsKey(configured: string | undefined, dataDir: string): Buffer {
  if (configured) return decodeKey(configured);
  const file = path.join(dataDir, "secrets.key");
  if (existsSync(file)) return decodeKey(readFileSync(file, "utf8"));
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  writeFileSync(file, `${key.toString("base64")}\n`, { mode: 0o600 });
  return key;
}
