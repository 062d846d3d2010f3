import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeProviders, startFakeProviders } from "../fakes/providers.js";
import { configureChannel } from "../helpers/channels.js";
import {
  type DashboardTest,
  type DashboardUser,
  expectAccessible,
  hasChromium,
  screenshot,
  skipReason,
  startDashboardTest,
} from "../helpers/dashboard.js";

// Channels: an admin connects WhatsApp from its form (secrets write-only), copies the webhook URL, sends a test
// message that reaches the fake provider, disables the channel; adds a voice; a viewer only reads.

let providers: FakeProviders;
let t: DashboardTest;
let admin: DashboardUser;
let viewer: DashboardUser;

beforeAll(async () => {
  if (!hasChromium) return;
  providers = await startFakeProviders();
  t = await startDashboardTest({ ...providers.env, PUBLIC_BASE_URL: "https://parley.example-bank.com" });
  await configureChannel(t.app, t.tenant.apiKey, "botmsg", {
    bot_token: "7012345678:AAEhBOweik6ad9r_QXMENQjcrGbqCr4K-TA",
    secret_token: "telegram_secret_0123456789",
  });
  admin = await t.user("admin", "Ana Admin");
  viewer = await t.user("viewer", "Vic Viewer");
}, 120_000);
afterAll(async () => {
  await t?.close();
  await providers?.close();
});

describe.runIf(hasChromium)(`the channels page${skipReason}`, () => {
  it("connects a channel, shows its webhook URL, sends a test message, and disables it", async () => {
    const page = await t.signIn(admin, "channels");
    await page.getByLabel("Provider", { exact: true }).selectOption({ label: "WhatsApp (chat app)" });
    await page.getByLabel("Phone number id").fill("270000000000001");
    await page.getByLabel("Access token").fill("EAAG-dashboard-channel-token");
    await page.getByLabel("Verify token (you choose it)").fill("vt_dashboard_channel");
    await page.getByLabel("App secret").fill("dashboard_app_secret");
    await page.getByRole("button", { name: "Connect channel" }).click();
    const card = page.getByRole("region", { name: "WhatsApp (chat app)" });
    await expect
      .poll(() => card.getByLabel("Webhook URL to paste in the provider's console").inputValue())
      .toBe("https://parley.example-bank.com/api/channels/chatapp");
    await card.getByText("Credentials and settings").click();
    expect(await card.getByLabel("Access token").inputValue()).toBe("");
    expect(await card.getByLabel("Access token").getAttribute("placeholder")).toMatch(/^Saved \(•+oken\): type to replace$/);
    expect(await card.getByLabel("Phone number id").inputValue()).toBe("270000000000001");

    const sends = providers.sends.length;
    await card.getByLabel("Send a test message to").fill("4915550009999");
    await card.getByRole("button", { name: "Send test" }).click();
    await expect.poll(() => card.getByText("Sent to 4915550009999.").isVisible()).toBe(true);
    const sent = (await providers.waitForSends(sends + 1)).at(-1)!;
    expect(sent).toMatchObject({ path: "/graph/270000000000001/messages", body: { to: "4915550009999" } });
    expect(sent.headers.authorization).toBe("Bearer EAAG-dashboard-channel-token");
    await expectAccessible(page, "channels");
    await screenshot(page, "channels");

    await card.getByRole("button", { name: "Disable" }).click();
    await expect.poll(() => card.getByText("disabled", { exact: true }).isVisible()).toBe(true);
    const row = await t.app.services.db.prisma.channel.findFirstOrThrow({
      where: { tenantId: t.tenant.tenantId, type: "chatapp" },
    });
    expect(row.enabled).toBe(false);
    expect(row.credentials).not.toContain("EAAG");

    await page.getByLabel("Voice name").fill("Polly.Emma");
    await page.getByLabel("Greeting", { exact: true }).fill("Welcome to Example Bank.");
    await page.getByRole("button", { name: "Add voice" }).click();
    await expect.poll(() => page.getByText("Polly.Emma (en-GB, rate 1)").isVisible()).toBe(true);
    expect(await page.getByRole("region", { name: "Voices" }).getByText("selected", { exact: true }).isVisible()).toBe(true);
    await page.close();
  });

  it("shows a viewer the channels without forms", async () => {
    const page = await t.signIn(viewer, "channels");
    await expect.poll(() => page.getByRole("region").filter({ hasText: "botmsg" }).first().isVisible()).toBe(true);
    expect(await page.getByRole("button", { name: "Connect channel" }).count()).toBe(0);
    expect(await page.getByRole("button", { name: "Send test" }).count()).toBe(0);
    expect(await page.getByRole("button", { name: "Add voice" }).count()).toBe(0);
    await page.close();
  });
});
