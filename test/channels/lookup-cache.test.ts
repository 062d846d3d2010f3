import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { chatappTextDelivery, configureChannel, chatappCredentials as credentials, metaSignature } from "../helpers/channels.js";

// Each instance keeps the channel rows its webhooks looked up (an acknowledgement would otherwise read them on every
// delivery): a change of a channel, through the API of any instance, must route the next delivery by the new rows.
const path = "/api/channels/chatapp";
// Instances that share a database share the key its channel credentials are sealed with.
const env = { SECRETS_KEY: "11".repeat(32) };
let app: TestApp;
let bank: { apiKey: string; tenantId: string };

/** Posts a delivery for the account signed with the secret: its status, and whether a job was stored for it. */
async function deliver(on: TestApp, account: string, secret: string) {
  const { body, id } = chatappTextDelivery(account);
  const res = await on.request(path, {
    body,
    headers: { "content-type": "application/json", "x-hub-signature-256": metaSignature(body, secret) },
  });
  const jobs = await on.services.db.prisma.job.count({ where: { queue: "channel.inbound", dedupeKey: { endsWith: `:${id}` } } });
  return { status: res.status, stored: jobs === 1 };
}

beforeAll(async () => {
  app = await startTestApp(env);
  bank = await app.tenant("Cached Channel Bank");
});

afterAll(async () => {
  await app?.close();
});

describe("the webhook's channel look-ups", () => {
  it("route the next delivery by a channel changed through the API: new secret, disabled, deleted", async () => {
    const account = "200000000000901";
    const channel = await configureChannel(app, bank.apiKey, "chatapp", credentials(account, "first-secret-0001"));
    expect(await deliver(app, account, "first-secret-0001")).toEqual({ status: 200, stored: true });

    await configureChannel(app, bank.apiKey, "chatapp", credentials(account, "second-secret-0002"));
    expect(await deliver(app, account, "first-secret-0001")).toEqual({ status: 401, stored: false });
    expect(await deliver(app, account, "second-secret-0002")).toEqual({ status: 200, stored: true });

    for (const enabled of [false, true]) {
      const saved = await app.request("/api/tenant/channels/chatapp", { method: "PUT", key: bank.apiKey, body: { enabled } });
      expect(saved.status).toBe(200);
      expect(await deliver(app, account, "second-secret-0002")).toEqual({ status: 200, stored: enabled });
    }

    const removed = await app.request(`/api/tenant/channels/${channel.id}`, { method: "DELETE", key: bank.apiKey });
    expect(removed.status).toBeLessThan(300);
    expect(await deliver(app, account, "second-secret-0002")).toEqual({ status: 200, stored: false });
  });

  it("are read from the database once, until a change is announced", async () => {
    const other = await app.tenant("Behind The Back Bank");
    const account = "200000000000902";
    const channel = await configureChannel(app, other.apiKey, "chatapp", credentials(account, "cached-secret-0003"));
    // The first delivery proves the channel's claim on the account, a change announced like any other.
    for (let i = 0; i < 2; i++) expect(await deliver(app, account, "cached-secret-0003")).toEqual({ status: 200, stored: true });
    // Disabled behind the API's back: the instance still routes by the rows it read...
    await app.services.db.prisma.channel.update({ where: { id: channel.id }, data: { enabled: false } });
    expect(await deliver(app, account, "cached-secret-0003")).toEqual({ status: 200, stored: true });
    // ...until the change is announced, as the API announces its own.
    app.services.tenants.changed(other.tenantId);
    expect(await deliver(app, account, "cached-secret-0003")).toEqual({ status: 200, stored: false });
  });
});

describe.runIf(process.env.DATABASE_URL && process.env.REDIS_URL)("several instances", () => {
  it("route by a channel changed on another instance once its announcement arrives", async () => {
    const second = await startTestApp(env, { database: app.database });
    try {
      const account = "200000000000903";
      await configureChannel(app, bank.apiKey, "chatapp", credentials(account, "shared-secret-0004"));
      expect(await deliver(second, account, "shared-secret-0004")).toEqual({ status: 200, stored: true });
      await configureChannel(app, bank.apiKey, "chatapp", credentials(account, "rotated-secret-0005"));
      await expect.poll(async () => (await deliver(second, account, "shared-secret-0004")).status, { interval: 20 }).toBe(401);
      expect(await deliver(second, account, "rotated-secret-0005")).toEqual({ status: 200, stored: true });
    } finally {
      await second.close();
    }
  }, 120_000);
});
