import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { base32Decode, hotp, totpStep } from "../../src/agents/totp.js";
import { type FakeOidcProvider, startOidcProvider } from "../fakes/oidc-provider.js";
import {
  type DashboardTest,
  type DashboardUser,
  expectAccessible,
  hasChromium,
  screenshot,
  skipReason,
  startDashboardTest,
} from "../helpers/dashboard.js";

// How a bank's team signs in, visited in sequence by one service and one browser:
// - Settings: an admin connects the bank's OpenID Connect provider (a real one on 127.0.0.1, secrets write-only),
//   words the AI disclosure, and sets business hours and a holiday.
// - The sign-in page offers "Sign in with <provider>" from the team's link, and the provider's sign-in ends signed in.
// - My account: an agent enrols in two-factor sign-in with the QR code and a code of the app, is shown recovery codes
//   once, signs in elsewhere with one, ends that session from the list, and turns two-factor off.
// - With two-factor required by the tenant, a user without it can only enrol, then works as usual.
// The service's public address is a name of its own (as the provider knows it), which Chromium maps to the test port.

const publicHost = "parley.test";
let provider: FakeOidcProvider;
let t: DashboardTest;
let admin: DashboardUser;
let agent: DashboardUser;

/** The authenticator app's code for the current time step. */
const appCode = (secret: string) => hotp(base32Decode(secret), totpStep(Date.now()));

beforeAll(async () => {
  if (!hasChromium) return;
  provider = await startOidcProvider(`http://${publicHost}/auth/oidc/callback`);
  t = await startDashboardTest({ EGRESS_ALLOW_CIDRS: "127.0.0.1/32", PUBLIC_BASE_URL: `http://${publicHost}` }, "Example Bank", {
    publicHost,
  });
  admin = await t.user("admin", "Ana Admin");
  agent = await t.user("agent", "Sam Agent");
}, 120_000);
afterAll(async () => {
  await t?.close();
  await provider?.close();
});

const settingsOf = async () =>
  (await t.app.services.db.prisma.tenant.findUniqueOrThrow({ where: { id: t.tenant.tenantId } })).settings as Record<
    string,
    unknown
  >;

describe.runIf(hasChromium)(`the settings for sign-in, disclosure and hours${skipReason}`, () => {
  it("lets an admin connect the bank's provider, word the AI disclosure, and set business hours and holidays", async () => {
    const page = await t.signIn(admin, "settings");
    const disclosure = page.getByRole("form", { name: "AI disclosure" });
    await disclosure.getByLabel("Assistant's name (empty: the bank's name)").fill("Penny");
    await disclosure.getByRole("button", { name: "Save disclosure" }).click();
    await expect.poll(() => disclosure.locator("q").textContent()).toContain("Penny");
    expect(await settingsOf()).toMatchObject({ assistantName: "Penny" });

    const hours = page.getByRole("form", { name: "Business hours and holidays" });
    await hours.getByLabel("Time zone").fill("Europe/Zurich");
    await hours.getByRole("button", { name: "Add opening hours" }).click();
    await hours.getByLabel("Interval 6: day").selectOption("saturday");
    await hours.getByLabel("Opens").nth(5).fill("10:00");
    await hours.getByLabel("Closes").nth(5).fill("13:00");
    await hours.getByRole("button", { name: "Add a holiday" }).click();
    await hours.getByLabel("Date").fill("2026-12-25");
    await hours.getByLabel("Name").fill("Christmas Day");
    await hours.getByRole("button", { name: "Save business hours" }).click();
    await expect.poll(() => hours.getByText("Business hours saved.").isVisible()).toBe(true);
    expect((await settingsOf()).businessHours).toMatchObject({
      timeZone: "Europe/Zurich",
      weekly: expect.arrayContaining([{ day: "saturday", open: "10:00", close: "13:00" }]),
      holidays: [{ date: "2026-12-25", name: "Christmas Day" }],
    });
    await hours.getByLabel("Closes").first().fill("25:00");
    await hours.getByRole("button", { name: "Save business hours" }).click();
    expect(
      await hours
        .getByLabel("Closes")
        .first()
        .evaluate((input: HTMLInputElement) => input.validity.valid),
    ).toBe(false);

    const signIn = page.getByRole("region", { name: "Sign-in" });
    await signIn.getByLabel("Issuer URL").fill(provider.issuer);
    await signIn.getByLabel("Client id").fill(provider.clientId);
    await signIn.getByLabel("Client secret").fill(provider.clientSecret);
    await signIn.getByRole("button", { name: "Save provider" }).click();
    await expect
      .poll(() => signIn.getByLabel("Redirect URI to register at the provider").inputValue())
      .toBe(`http://${publicHost}/auth/oidc/callback`);
    expect(await signIn.getByLabel("Client secret").inputValue()).toBe("");
    expect(await signIn.getByLabel("Client secret").getAttribute("placeholder")).toMatch(/^Saved \(•+ider\): type to replace$/);
    expect(await signIn.getByLabel(/Your team's sign-in link/).inputValue()).toBe(
      `http://${publicHost}/dashboard/?tenant=${t.tenant.tenantId}`,
    );
    await expectAccessible(page, "settings with sign-in, disclosure and hours");
    await screenshot(page, "settings-sign-in", "here");
    await page.close();
  });
});

describe.runIf(hasChromium)(`the sign-in page with the bank's provider${skipReason}`, () => {
  it("offers the provider from the team's link and signs the user in through it", async () => {
    provider.accounts.set("sam-at-the-bank", { email: agent.email, email_verified: true, name: "Sam Agent" });
    provider.signInAs("sam-at-the-bank");
    const page = await t.open(`?tenant=${t.tenant.tenantId}`);
    const button = page.getByRole("link", { name: `Sign in with ${new URL(provider.issuer).host}` });
    await expect.poll(() => button.isVisible()).toBe(true);
    await expectAccessible(page, "sign-in page with the provider");
    await screenshot(page, "sign-in");
    await button.click();
    await expect.poll(() => page.getByRole("button", { name: "Sign out" }).isVisible(), { timeout: 30_000 }).toBe(true);
    expect(page.url()).not.toContain("login_code");
    const session = await t.app.services.db.prisma.userSession.findFirstOrThrow({
      where: { userId: agent.id },
      orderBy: { createdAt: "desc" },
    });
    expect(session.method).toBe("oidc");

    // The browser remembers the bank: its sign-in page offers the provider again, without the link.
    await page.getByRole("button", { name: "Sign out" }).click();
    await expect.poll(() => button.isVisible()).toBe(true);
    await page.close();
  });

  it("says in words why a sign-in through the provider failed, and takes the outcome out of the address", async () => {
    const page = await t.open("inbox#login_error=AUTH_INVALID&message=The%20provider%20refused%20this%20person");
    await expect
      .poll(() => page.getByRole("alert").textContent())
      .toBe("Sign-in through your bank's provider failed: The provider refused this person");
    expect(new URL(page.url()).hash).toBe("");
    await page.close();
  });
});

async function enrol(page: Page): Promise<{ secret: string; recoveryCodes: string[] }> {
  await page.getByRole("button", { name: "Set up two-factor sign-in" }).click();
  const qr = page.getByRole("img", { name: /QR code of your two-factor secret/ });
  await expect.poll(() => qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
  const secret = await page.getByLabel("Secret key").inputValue();
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  await page.getByLabel("Code the app shows").fill(appCode(secret));
  await page.getByRole("button", { name: "Turn on two-factor sign-in" }).click();
  const codes = page.getByRole("list", { name: "Recovery codes" }).getByRole("listitem");
  await expect.poll(() => codes.count()).toBe(10);
  return { secret, recoveryCodes: await codes.allTextContents() };
}

describe.runIf(hasChromium)(`my account${skipReason}`, () => {
  it("enrols in two-factor sign-in with the QR code, signs in with a recovery code, ends that session, and turns it off", async () => {
    const page = await t.signIn(agent, "account");
    await expect.poll(() => page.getByText("Signing in asks only for your password.").isVisible()).toBe(true);
    await expectAccessible(page, "account before two-factor");
    const { recoveryCodes } = await enrol(page);
    expect(new Set(recoveryCodes).size).toBe(10);
    await expect.poll(() => page.getByText("10 recovery codes left.").isVisible()).toBe(true);
    await expectAccessible(page, "account with recovery codes");
    await screenshot(page, "account");

    const elsewhere = await t.open("inbox");
    await t.submitPassword(elsewhere, agent);
    await elsewhere.getByLabel("Code from your authenticator app, or a recovery code").fill(recoveryCodes[0]!);
    await elsewhere.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect.poll(() => elsewhere.getByRole("button", { name: "Sign out" }).isVisible()).toBe(true);

    await page.reload();
    const sessions = page.getByRole("table", { name: "Your sessions" });
    const other = sessions.getByRole("row").filter({ hasText: "password+mfa" });
    await expect.poll(() => other.count()).toBe(1);
    expect(await sessions.getByRole("row").filter({ hasText: "this one" }).count()).toBe(1);
    await other.getByRole("button", { name: /^End/ }).click();
    await expect.poll(() => page.getByText("The session is ended.").isVisible()).toBe(true);
    await elsewhere.getByRole("link", { name: "Escalations" }).click();
    await expect.poll(() => elsewhere.getByText(/Your session has ended/).isVisible()).toBe(true);
    await elsewhere.close();

    await page.getByLabel("Code, to turn it off").fill(recoveryCodes[1]!);
    await page.getByRole("button", { name: "Turn off two-factor sign-in" }).click();
    await expect.poll(() => page.getByText("Two-factor sign-in is off.").isVisible()).toBe(true);
    expect((await t.app.services.db.prisma.user.findUniqueOrThrow({ where: { id: agent.id } })).mfaEnabledAt).toBeNull();
    await page.close();
  });

  it("is usable at phone width", async () => {
    const page = await t.signIn(agent, "account", { width: 390, height: 844 });
    await expect.poll(() => page.getByRole("table", { name: "Your sessions" }).isVisible()).toBe(true);
    // The page itself does not scroll sideways: a wide table scrolls inside its own box.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await expectAccessible(page, "account at phone width");
    await page.close();
  });

  it("holds a user without two-factor to enrolment while the tenant requires it, then opens the rest", async () => {
    const settings = await t.signIn(admin, "settings");
    await settings.getByLabel(/Require two-factor sign-in for everyone/).check();
    // The admin has no second factor either: their own session is held back to enrolment at its next request.
    await expect.poll(() => settings.getByText(/Your bank requires two-factor sign-in/).isVisible()).toBe(true);
    expect(new URL(settings.url()).pathname).toBe("/dashboard/account");
    expect(await settingsOf()).toMatchObject({ requireMfa: true });
    await settings.close();

    const viewer = await t.user("viewer", "Vic Viewer");
    const page = await t.open("analytics");
    await t.submitPassword(page, viewer);
    await expect.poll(() => page.getByText(/Your bank requires two-factor sign-in/).isVisible(), { timeout: 20_000 }).toBe(true);
    expect(new URL(page.url()).pathname).toBe("/dashboard/account");
    const nav = page.getByRole("navigation", { name: "Sections" }).getByRole("link");
    expect(await nav.allTextContents()).toEqual(["My account"]);
    await expectAccessible(page, "enrolment required");
    await enrol(page);
    await expect.poll(() => page.getByText("it cannot be turned off").isVisible()).toBe(true);
    await expect.poll(() => nav.count()).toBeGreaterThan(1);
    await nav.filter({ hasText: "Analytics" }).click();
    await expect.poll(() => page.getByRole("heading", { name: "Analytics" }).isVisible()).toBe(true);
    await page.close();
  });
});
