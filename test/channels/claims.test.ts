import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { chatappTextDelivery, configureChannel, chatappCredentials as credentials, metaSignature } from "../helpers/channels.js";

// Channel accounts cannot be probed or squatted: saving a channel claims a provider account without
// saying whether another tenant claims it, and a delivery goes only to the claim whose credentials
// verify its signature. Shown on the chat-app channel; every account-routed channel shares the path.
const path = "/api/channels/chatapp";
const ownerSecret = "owner-app-secret-0001";
const squatterSecret = "squatter-app-secret-0002";
const account = "200000000000777";
let app: TestApp;
let owner: { apiKey: string; tenantId: string };
let squatter: { apiKey: string; tenantId: string };

/** Posts a delivery for the account signed with the secret; answers the status and the tenants its jobs went to. */
async function deliver(phoneNumberId: string, secret: string) {
  const { body, id } = chatappTextDelivery(phoneNumberId);
  const res = await app.request(path, {
    body,
    headers: { "content-type": "application/json", "x-hub-signature-256": metaSignature(body, secret) },
  });
  const jobs = await app.services.db.prisma.job.findMany({
    where: { queue: "channel.inbound", dedupeKey: { endsWith: `:${id}` } },
    select: { tenantId: true },
  });
  return { status: res.status, tenants: jobs.map((j) => j.tenantId) };
}

async function verificationOf(apiKey: string) {
  const res = await app.request("/api/tenant/channels/chatapp", { key: apiKey });
  expect(res.status).toBe(200);
  return res.body.verification.status as string;
}

beforeAll(async () => {
  app = await startTestApp();
  owner = await app.tenant("Owner Bank");
  squatter = await app.tenant("Squatter Bank");
  await configureChannel(app, owner.apiKey, "chatapp", credentials(account, ownerSecret));
});

afterAll(async () => {
  await app?.close();
});

describe("channel account claims", () => {
  it("saves a claim on another tenant's account like any other: pending, and it receives none of the owner's traffic", async () => {
    const claim = await app.request("/api/tenant/channels/chatapp", {
      method: "PUT",
      key: squatter.apiKey,
      body: { credentials: credentials(account, squatterSecret) },
    });
    expect(claim.status).toBe(201);
    expect(claim.body.verification.status).toBe("pending");
    expect(await deliver(account, ownerSecret)).toEqual({ status: 200, tenants: [owner.tenantId] });
    expect(await verificationOf(owner.apiKey)).toBe("verified");
    expect(await verificationOf(squatter.apiKey)).toBe("pending");
  });

  it("refuses a delivery no claim of the account verifies (401), storing nothing", async () => {
    expect(await deliver(account, "a-secret-nobody-saved")).toEqual({ status: 401, tenants: [] });
  });

  it("keeps an unproven claim from receiving anything, and lets a delivery signed with its credentials prove it", async () => {
    const fresh = "200000000000888";
    const { apiKey, tenantId } = await app.tenant("New Bank");
    await configureChannel(app, apiKey, "chatapp", credentials(fresh, "new-bank-app-secret-03"));
    expect(await verificationOf(apiKey)).toBe("pending");
    expect(await deliver(fresh, ownerSecret)).toEqual({ status: 401, tenants: [] });
    expect(await verificationOf(apiKey)).toBe("pending");
    expect(await deliver(fresh, "new-bank-app-secret-03")).toEqual({ status: 200, tenants: [tenantId] });
    expect(await verificationOf(apiKey)).toBe("verified");
  });

  it("never gives a squatter the owner's traffic, even once it proved its claim with a secret of its own", async () => {
    // A squatter can sign a forgery with the secret it saved: that proves its claim, and reaches only itself.
    expect(await deliver(account, squatterSecret)).toEqual({ status: 200, tenants: [squatter.tenantId] });
    expect(await verificationOf(squatter.apiKey)).toBe("verified");
    expect(await verificationOf(owner.apiKey)).toBe("pending");
    // The provider signs with the owner's secret: its next delivery is the owner's, and proves the owner again.
    expect(await deliver(account, ownerSecret)).toEqual({ status: 200, tenants: [owner.tenantId] });
    expect(await verificationOf(owner.apiKey)).toBe("verified");
    expect(await verificationOf(squatter.apiKey)).toBe("pending");
  });

  it("keeps at most one verified claim per provider account in the database", async () => {
    const prisma = app.services.db.prisma;
    const squatterChannel = await prisma.channel.findFirstOrThrow({ where: { tenantId: squatter.tenantId, type: "chatapp" } });
    await expect(
      prisma.channel.update({ where: { id: squatterChannel.id }, data: { verifiedRoutingKey: account } }),
    ).rejects.toMatchObject({ code: "P2002" });
  });

  it("starts a channel moved to another account over as pending", async () => {
    const moved = await app.request("/api/tenant/channels/chatapp", {
      method: "PUT",
      key: owner.apiKey,
      body: { credentials: { phone_number_id: "200000000000999" } },
    });
    expect(moved.body.verification.status).toBe("pending");
    const back = await app.request("/api/tenant/channels/chatapp", {
      method: "PUT",
      key: owner.apiKey,
      body: { credentials: { phone_number_id: account } },
    });
    expect(back.body.verification.status).toBe("pending");
    expect(await deliver(account, ownerSecret)).toEqual({ status: 200, tenants: [owner.tenantId] });
  });
});
