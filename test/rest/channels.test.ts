import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/app.js";

// The channel and voice configuration APIs (the dashboard's Channels page).
let app: TestApp;
let key: string;
let tenantId: string;
let otherKey: string;

const chatapp = {
  phone_number_id: "210000000000001",
  access_token: "EAAG-secret-access-token-0001",
  verify_token: "verify-me-please",
  app_secret: "app-secret-0000001",
};

beforeAll(async () => {
  app = await startTestApp({ PUBLIC_BASE_URL: "https://parley.example-bank.com" });
  ({ apiKey: key, tenantId } = await app.tenant("Config Bank"));
  ({ apiKey: otherKey } = await app.tenant("Other Bank"));
});

afterAll(async () => {
  await app?.close();
});

const put = (ref: string, body: unknown, k = key) => app.request(`/api/tenant/channels/${ref}`, { method: "PUT", key: k, body });

describe("channel configuration", () => {
  let channelId: string;

  it("creates a channel on its first PUT by type, with the URL to paste in the provider's console", async () => {
    const res = await put("chatapp", {
      name: "WhatsApp UK",
      credentials: chatapp,
      settings: { greeting: "Hello from the bank" },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      type: "chatapp",
      name: "WhatsApp UK",
      enabled: true,
      routing_key: "210000000000001",
      settings: { greeting: "Hello from the bank" },
      webhook_url: "https://parley.example-bank.com/api/channels/chatapp",
    });
    channelId = res.body.id;
    expect(channelId).toMatch(/^chn_/);
  });

  it("never returns a secret: identifiers in clear, secrets masked, in lists and reads", async () => {
    const list = await app.request("/api/tenant/channels", { key });
    const one = await app.request(`/api/tenant/channels/${channelId}`, { key });
    const byType = await app.request("/api/tenant/channels/chatapp", { key });
    for (const res of [list, one, byType]) {
      expect(res.status).toBe(200);
      const text = JSON.stringify(res.body);
      for (const secret of [chatapp.access_token, chatapp.verify_token, chatapp.app_secret]) expect(text).not.toContain(secret);
    }
    expect(one.body.credentials).toEqual({
      phone_number_id: "210000000000001",
      access_token: "••••0001",
      verify_token: "••••ease",
      app_secret: "••••0001",
    });
    expect(list.body.channels).toHaveLength(1);
    expect(byType.body.id).toBe(channelId);
  });

  it("stores the credentials encrypted", async () => {
    const row = await app.services.db.prisma.channel.findUniqueOrThrow({ where: { id: channelId } });
    expect(row.credentials).not.toContain(chatapp.access_token);
    expect(row.credentials).toMatch(/^v1:/);
  });

  it("changes one secret without sending the others, and disables the channel", async () => {
    const res = await put(channelId, { credentials: { access_token: "EAAG-rotated-token-000000002" }, enabled: false });
    expect(res.status).toBe(200);
    expect(res.body.enabled).toBe(false);
    expect(res.body.credentials.access_token).toBe("••••0002");
    expect(res.body.credentials.phone_number_id).toBe("210000000000001");
    expect((await put(channelId, { enabled: true })).body.enabled).toBe(true);
  });

  it("answers 422 VALIDATION with field details for credentials that do not fit the channel type", async () => {
    const res = await put("messenger", { credentials: { page_id: "not-a-number", access_token: "short" } });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("VALIDATION");
    const paths = res.body.details.map((d: { path: string }) => d.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        "credentials.page_id",
        "credentials.access_token",
        "credentials.verify_token",
        "credentials.app_secret",
      ]),
    );
    const settings = await put(channelId, { settings: { maxReplyChars: 5 } });
    expect(settings.status).toBe(422);
    expect(settings.body.details[0].path).toBe("settings.maxReplyChars");
  });

  it("answers 404 for an unknown channel type or id", async () => {
    expect((await put("carrier-pigeon", { credentials: {} })).status).toBe(404);
    expect((await app.request("/api/tenant/channels/chn_00000000000000000000000000", { key })).status).toBe(404);
  });

  it("answers a claim on an account another tenant has connected exactly as one on a fresh account", async () => {
    const { apiKey: probeKey } = await app.tenant("Probing Bank");
    const { apiKey: freshKey } = await app.tenant("Fresh Bank");
    const taken = await put("chatapp", { credentials: { ...chatapp, verify_token: "other-verify-1" } }, probeKey);
    const fresh = await put(
      "chatapp",
      { credentials: { ...chatapp, phone_number_id: "210000000000999", verify_token: "other-verify-1" } },
      freshKey,
    );
    expect(taken.status).toBe(201);
    expect(fresh.status).toBe(201);
    // Everything but the ids and times the two tenants chose or got is alike.
    const shape = (body: Record<string, unknown>) => ({
      ...body,
      id: "",
      routing_key: "",
      credentials: { ...(body.credentials as object), phone_number_id: "" },
      created_at: "",
      updated_at: "",
    });
    expect(shape(taken.body)).toEqual(shape(fresh.body));
    expect(taken.body.verification.status).toBe("pending");
    expect(JSON.stringify(taken.body)).not.toContain(tenantId);
  });

  it("shows the channel's verification state and what completes it, in REST and GraphQL", async () => {
    const rest = await app.request(`/api/tenant/channels/${channelId}`, { key });
    expect(rest.body.verification).toEqual({ status: "pending", instructions: expect.stringContaining("webhook_url") });
    const gql = await app.request("/graphql", {
      key,
      body: { query: `{ channel(ref: "${channelId}") { verification { status instructions } } }` },
    });
    expect(gql.body.data.channel.verification).toEqual(rest.body.verification);
    const widget = await put("widget", { credentials: { secret: "widget-secret-of-config-bank-0001" } });
    expect(widget.body.verification.status).toBe("not_required");
  });

  it("keeps tenants apart: another tenant can neither read nor change nor delete the channel", async () => {
    expect((await app.request(`/api/tenant/channels/${channelId}`, { key: otherKey })).status).toBe(404);
    expect((await put(channelId, { enabled: false }, otherKey)).status).toBe(404);
    expect((await app.request(`/api/tenant/channels/${channelId}`, { method: "DELETE", key: otherKey })).status).toBe(404);
    expect((await app.request("/api/tenant/channels", { key: otherKey })).body.channels).toEqual([]);
  });

  it("lets a viewer read but not configure (403 FORBIDDEN)", async () => {
    const viewer = await app.keyFor(tenantId, "viewer");
    expect((await app.request("/api/tenant/channels", { key: viewer })).status).toBe(200);
    const res = await put(channelId, { enabled: false }, viewer);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("FORBIDDEN");
  });

  it("answers 401 AUTH_INVALID without a key", async () => {
    expect((await app.request("/api/tenant/channels")).status).toBe(401);
  });

  it("deletes a channel by id", async () => {
    const created = await put("messenger", {
      credentials: {
        page_id: "310000000000001",
        access_token: "EAAB-page-token-xyz",
        verify_token: "verify-two",
        app_secret: "app-secret-2",
      },
    });
    expect(created.status).toBe(201);
    const res = await app.request(`/api/tenant/channels/${created.body.id}`, { method: "DELETE", key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deleted: created.body.id });
    expect((await app.request(`/api/tenant/channels/${created.body.id}`, { key })).status).toBe(404);
  });
});

describe("voices", () => {
  it("adds voices, selects the first one, and switches the selection", async () => {
    const first = await app.request("/api/tenant/voices", {
      key,
      body: { name: "Polly.Amy", language: "en-GB", speaking_rate: 1.1, greeting: "Welcome to Config Bank." },
    });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ name: "Polly.Amy", language: "en-GB", speaking_rate: 1.1, selected: true });
    const second = await app.request("/api/tenant/voices", { key, body: { name: "Polly.Brian", language: "en-GB" } });
    expect(second.body.selected).toBe(false);
    const switched = await app.request("/api/tenant/voices", { key, body: { id: second.body.id, selected: true } });
    expect(switched.status).toBe(200);
    const list = await app.request("/api/tenant/voices", { key });
    expect(list.body.voices.map((v: { name: string; selected: boolean }) => [v.name, v.selected])).toEqual([
      ["Polly.Amy", false],
      ["Polly.Brian", true],
    ]);
  });

  it("answers 422 for a voice without a name or language, or with an out-of-range rate", async () => {
    const missing = await app.request("/api/tenant/voices", { key, body: { name: "Polly.Emma" } });
    expect(missing.status).toBe(422);
    const rate = await app.request("/api/tenant/voices", {
      key,
      body: { name: "Polly.Emma", language: "en-GB", speaking_rate: 5 },
    });
    expect(rate.status).toBe(422);
    expect(rate.body.details[0].path).toBe("speakingRate");
  });

  it("keeps voices per tenant", async () => {
    expect((await app.request("/api/tenant/voices", { key: otherKey })).body.voices).toEqual([]);
    const mine = (await app.request("/api/tenant/voices", { key })).body.voices[0];
    const res = await app.request("/api/tenant/voices", { key: otherKey, body: { id: mine.id, selected: true } });
    expect(res.status).toBe(404);
  });
});
