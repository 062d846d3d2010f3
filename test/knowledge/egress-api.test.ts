import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Prisma } from "../../src/db/generated/prisma/client.js";
import { type BankSite, startBankSite } from "../fakes/bank-site.js";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { waitForSource } from "./knowledge-api.js";

// A deployment as it starts by default: EGRESS_ALLOW_CIDRS unset, so no internal address is open to crawls.
let app: TestApp;
let site: BankSite;

beforeAll(async () => {
  app = await startTestApp();
  app.startWorker();
  site = await startBankSite();
});
afterAll(async () => {
  await app?.close();
  await site?.close();
});

async function addUrl(key: string, url: string) {
  const added = await app.request("/api/knowledge/sources", { key, body: { type: "url", source_url: url } });
  expect(added.status).toBe(202);
  return waitForSource(app, added.body.id, key);
}

describe("crawling internal addresses (SSRF) is the operator's decision alone", () => {
  it("fails the source of a site on a loopback address with a clear error, without sending it a request", async () => {
    const bank = await app.tenant("Loopback Bank");
    for (const url of [`${site.url}/`, site.url.replace("127.0.0.1", "localhost")]) {
      const failed = await addUrl(bank.apiKey, url);
      expect(failed).toMatchObject({ status: "failed", pages: 0, chunks: 0 });
      expect(failed.error).toMatch(
        /(127\.0\.0\.1|localhost resolves to (127\.0\.0\.1|::1)),? (is )?a private or reserved address/,
      );
    }
    expect(site.requests).toEqual([]);
  });

  it("offers no tenant setting to open internal addresses, whatever the key's role", async () => {
    const bank = await app.tenant("Owner Bank");
    const owner = await app.keyFor(bank.tenantId, "owner");
    const res = await app.request("/graphql", {
      key: owner,
      body: { query: "mutation { updateTenant(allowPrivateCrawl: true) { id settings } }" },
    });
    expect(res.body.errors?.[0]?.message).toMatch(/Unknown argument "allowPrivateCrawl"/);
    const tenant = await app.services.db.prisma.tenant.findUniqueOrThrow({ where: { id: bank.tenantId } });
    expect(tenant.settings).not.toHaveProperty("allowPrivateCrawl");
  });

  it("ignores the tenant setting that used to open them, where a tenant still has it stored", async () => {
    const bank = await app.tenant("Legacy Bank");
    const settings: Prisma.InputJsonObject = { allowPrivateCrawl: true };
    await app.services.db.prisma.tenant.update({ where: { id: bank.tenantId }, data: { settings } });
    const failed = await addUrl(bank.apiKey, `${site.url}/`);
    expect(failed.status).toBe("failed");
    expect(site.requests).toEqual([]);
  });
});
