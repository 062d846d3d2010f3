import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type DashboardTest,
  type DashboardUser,
  expectAccessible,
  hasChromium,
  screenshot,
  skipReason,
  startDashboardTest,
} from "../helpers/dashboard.js";

// Settings: an owner changes the bank's profile, persona, PII redaction and rate limit, creates an API key shown
// once (it works, with its role) and revokes it, sets up the widget and previews it on the page; an admin does not
// see the keys.

let t: DashboardTest;
let owner: DashboardUser;
let admin: DashboardUser;

beforeAll(async () => {
  if (!hasChromium) return;
  t = await startDashboardTest();
  owner = await t.user("owner", "Olga Owner");
  admin = await t.user("admin", "Ana Admin");
}, 120_000);
afterAll(() => t?.close());

describe.runIf(hasChromium)(`the settings page${skipReason}`, () => {
  it("saves the bank's settings, makes and revokes an API key, and sets up and previews the widget", async () => {
    const page = await t.signIn(owner, "settings");
    await page.getByLabel("Assistant persona and instructions").fill("You are Penny, Example Bank's friendly assistant.");
    await page.getByRole("checkbox", { name: /Mask card and account numbers/ }).uncheck();
    await page.getByLabel("Rate limit: requests").fill("300");
    await page.getByRole("button", { name: "Save settings" }).click();
    await expect.poll(() => page.getByText("Saved.", { exact: true }).isVisible()).toBe(true);
    const tenant = await t.app.services.db.prisma.tenant.findUniqueOrThrow({ where: { id: t.tenant.tenantId } });
    expect(tenant.settings).toMatchObject({
      persona: "You are Penny, Example Bank's friendly assistant.",
      piiRedaction: false,
      rateLimitMax: 300,
    });

    await page.getByLabel("Key name").fill("Reporting");
    await page.getByLabel("Key role").selectOption("viewer");
    await page.getByRole("button", { name: "Create key" }).click();
    const secret = page.getByLabel("New API key");
    await expect.poll(() => secret.isVisible()).toBe(true);
    const key = await secret.inputValue();
    expect((await t.app.request("/api/conversations", { key })).status).toBe(200);
    const write = await t.app.request("/api/knowledge/sources", { key, body: { type: "manual", title: "x", content: "y" } });
    expect(write.status).toBe(403);

    await page.getByLabel(/^Sites allowed to show it/).fill("https://www.example-bank.com");
    await page.getByLabel("Title").fill("Example Bank");
    await page.getByRole("button", { name: "Create the widget" }).click();
    await page.getByRole("button", { name: "Make a token and embed snippet" }).click();
    const snippet = page.getByLabel("Embed snippet: paste it into your pages");
    await expect.poll(() => snippet.inputValue()).toMatch(/^<script src="http:\/\/localhost:\d+\/widget\.js" data-key="[\w-]+"/);
    await page.getByRole("button", { name: /^Allow http:\/\/127\.0\.0\.1/ }).click();
    await page.getByRole("button", { name: "Show a live preview on this page" }).click();
    await expect.poll(() => page.locator("parley-chat .launcher").isVisible()).toBe(true);
    await page.locator("parley-chat .launcher").click();
    await expect.poll(() => page.locator("parley-chat .panel").isVisible()).toBe(true);
    await expectAccessible(page, "settings");
    await screenshot(page, "settings", "here");

    await page.getByRole("button", { name: "Revoke Reporting" }).click();
    await expect.poll(() => page.getByRole("row").filter({ hasText: "Reporting" }).getByText("revoked").isVisible()).toBe(true);
    expect((await t.app.request("/api/conversations", { key })).status).toBe(401);
    await page.close();
  });

  it("hides the API keys from an admin", async () => {
    const page = await t.signIn(admin, "settings");
    await expect.poll(() => page.getByRole("button", { name: "Save settings" }).isVisible()).toBe(true);
    expect(await page.getByRole("heading", { name: "API keys" }).count()).toBe(0);
    await page.close();
  });
});
