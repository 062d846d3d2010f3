import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashApiKey } from "../../src/auth/api-keys.js";
import {
  ApiKeysDocument,
  CreateApiKeyDocument,
  RevokeApiKeyDocument,
  TenantDocument,
  UpdateTenantDocument,
} from "../generated.js";
import { startTestApp, type TestApp } from "../helpers/app.js";

let app: TestApp;
let owner: { tenantId: string; apiKey: string };

beforeAll(async () => {
  app = await startTestApp();
  owner = await app.tenant("Keys Bank");
});
afterAll(() => app?.close());

describe("API keys (the Settings page)", () => {
  it("shows a new key once, stores only its hash, and lists it by prefix and role", async () => {
    const created = await app.graphql(CreateApiKeyDocument, { name: "CRM integration", role: "agent" }, owner.apiKey);
    const { key, apiKey } = created.data!.createApiKey;
    expect(key).toMatch(/^prl_[\w-]{43}$/);
    expect(key.startsWith(apiKey.prefix)).toBe(true);
    expect(apiKey.role).toBe("agent");

    const row = await app.services.db.prisma.apiKey.findUniqueOrThrow({ where: { id: apiKey.id } });
    expect(row.hash).toBe(hashApiKey(key));
    expect(JSON.stringify(row)).not.toContain(key);

    const listed = await app.graphql(ApiKeysDocument, {}, owner.apiKey);
    const entry = listed.data!.apiKeys.find((k) => k.id === apiKey.id);
    expect(entry).toMatchObject({ name: "CRM integration", prefix: apiKey.prefix, role: "agent", revokedAt: null });
    expect(JSON.stringify(listed)).not.toContain(key);
  });

  it("defaults a new key's role to admin and records when a key was last used", async () => {
    const created = await app.graphql(CreateApiKeyDocument, { name: "default role" }, owner.apiKey);
    const { key, apiKey } = created.data!.createApiKey;
    expect(apiKey.role).toBe("admin");
    const before = (await app.graphql(ApiKeysDocument, {}, owner.apiKey)).data!.apiKeys.find((k) => k.id === apiKey.id);
    expect(before?.lastUsedAt).toBeNull();
    await app.request("/api/conversations", { key });
    await expect
      .poll(
        async () =>
          (await app.graphql(ApiKeysDocument, {}, owner.apiKey)).data!.apiKeys.find((k) => k.id === apiKey.id)?.lastUsedAt,
      )
      .not.toBeNull();
  });

  it("revokes a key so that it is refused from then on", async () => {
    const { key, apiKey } = (await app.graphql(CreateApiKeyDocument, { name: "temp" }, owner.apiKey)).data!.createApiKey;
    const revoked = await app.graphql(RevokeApiKeyDocument, { id: apiKey.id }, owner.apiKey);
    expect(revoked.data?.revokeApiKey.revokedAt).toEqual(expect.any(String));
    expect((await app.request("/api/conversations", { key })).status).toBe(401);
    expect((await app.graphql(RevokeApiKeyDocument, { id: "key_unknown" }, owner.apiKey)).errors?.[0]?.extensions?.code).toBe(
      "NOT_FOUND",
    );
  });

  it("refuses a key revoked right after it was used, at the very next request", async () => {
    const { key, apiKey } = (await app.graphql(CreateApiKeyDocument, { name: "busy" }, owner.apiKey)).data!.createApiKey;
    expect((await app.request("/api/conversations", { key })).status).toBe(200);
    await app.graphql(RevokeApiKeyDocument, { id: apiKey.id }, owner.apiKey);
    expect((await app.request("/api/conversations", { key })).status).toBe(401);
  });

  it("lets only owners manage keys", async () => {
    const admin = await app.keyFor(owner.tenantId, "admin");
    expect((await app.graphql(ApiKeysDocument, {}, admin)).errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
    const ownerKey = (await app.graphql(CreateApiKeyDocument, { name: "second owner", role: "owner" }, owner.apiKey)).data!
      .createApiKey.key;
    expect((await app.graphql(ApiKeysDocument, {}, ownerKey)).data?.apiKeys.length).toBeGreaterThan(1);
  });
});

describe("tenant settings", () => {
  it("lets an admin rename the tenant and override its rate limit, validated", async () => {
    const admin = await app.keyFor(owner.tenantId, "admin");
    const updated = await app.graphql(UpdateTenantDocument, { name: "Keys Bank plc", rateLimitMax: 600 }, admin);
    expect(updated.data?.updateTenant).toMatchObject({ name: "Keys Bank plc", rateLimit: { max: 600, windowS: 60 } });
    const invalid = await app.graphql(UpdateTenantDocument, { rateLimitMax: 0 }, admin);
    expect(invalid.errors?.[0]?.extensions).toMatchObject({
      code: "VALIDATION",
      details: [expect.objectContaining({ path: "rateLimitMax" })],
    });
    const viewer = await app.keyFor(owner.tenantId, "viewer");
    expect((await app.graphql(UpdateTenantDocument, { name: "x" }, viewer)).errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
    expect((await app.graphql(TenantDocument, {}, viewer)).data?.tenant.name).toBe("Keys Bank plc");
  });
  it("applies a changed rate limit from the next request of a key in use", async () => {
    const admin = await app.keyFor(owner.tenantId, "admin");
    const limitOf = async () => (await app.request("/api/conversations", { key: admin })).headers.get("ratelimit-limit");
    await app.graphql(UpdateTenantDocument, { rateLimitMax: 500 }, admin);
    expect(await limitOf()).toBe("500");
    await app.graphql(UpdateTenantDocument, { rateLimitMax: 400 }, admin);
    expect(await limitOf()).toBe("400");
  });
});

// Each instance keeps the keys and settings it read: a change on one must reach the others through Redis.
describe.runIf(process.env.DATABASE_URL && process.env.REDIS_URL)("several instances", () => {
  it("refuses on every instance a key revoked on one, and applies a changed setting everywhere", async () => {
    const second = await startTestApp({}, { database: app.database });
    try {
      const { key, apiKey } = (await app.graphql(CreateApiKeyDocument, { name: "shared" }, owner.apiKey)).data!.createApiKey;
      expect((await second.request("/api/conversations", { key })).status).toBe(200);
      await app.graphql(UpdateTenantDocument, { rateLimitMax: 300 }, owner.apiKey);
      await expect
        .poll(async () => (await second.request("/api/conversations", { key })).headers.get("ratelimit-limit"), { interval: 20 })
        .toBe("300");
      await app.graphql(RevokeApiKeyDocument, { id: apiKey.id }, owner.apiKey);
      await expect.poll(async () => (await second.request("/api/conversations", { key })).status, { interval: 20 }).toBe(401);
    } finally {
      await second.close();
    }
  }, 120_000);
});
