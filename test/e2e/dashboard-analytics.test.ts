import { readFileSync } from "node:fs";
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
import { seedHistory } from "../helpers/seed.js";

// Analytics: a month of a busy tenant's conversations as cards and charts, narrowed to a channel, and the CSV of
// what is shown.

let t: DashboardTest;
let viewer: DashboardUser;

beforeAll(async () => {
  if (!hasChromium) return;
  t = await startDashboardTest();
  await seedHistory(t.app.services, t.tenant.tenantId, { conversations: 2_400 });
  viewer = await t.user("viewer", "Vic Viewer");
}, 120_000);
afterAll(() => t?.close());

describe.runIf(hasChromium)(`the analytics page${skipReason}`, () => {
  it("shows the figures and charts, narrows them to a channel, and downloads what is shown as CSV", async () => {
    const page = await t.signIn(viewer, "analytics");
    const conversations = page.locator(".card", { hasText: "conversations" }).first();
    await expect.poll(() => conversations.textContent()).toMatch(/^2,\d{3} conversations/);
    expect(await page.getByRole("img", { name: "Conversations per day by channel" }).isVisible()).toBe(true);
    expect(await page.getByText("resolved by the AI").isVisible()).toBe(true);
    expect(await page.getByRole("figure").filter({ hasText: "Top intents" }).getByText("opening_hours").isVisible()).toBe(true);
    await expectAccessible(page, "analytics");
    await screenshot(page, "analytics");

    await page.getByLabel("Channel", { exact: true }).selectOption("sms");
    await expect.poll(() => conversations.textContent()).toMatch(/^\d{3} conversations/);
    const shown = Number((await conversations.textContent())!.match(/^(\d+)/)![1]);
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Download CSV" }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^parley-analytics-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}-sms\.csv$/);
    const csv = readFileSync((await download.path())!, "utf8").split("\n");
    expect(csv[0]).toMatch(/^Parley analytics,.*,sms$/);
    expect(csv).toContain(`conversations,${shown}`);
    const header = csv.findIndex((line) => line.startsWith("day,conversations,"));
    expect(csv[header]).toBe("day,conversations,sms,escalations");
    const days = csv.slice(header + 1, csv.indexOf("", header));
    expect(days.reduce((total, line) => total + Number(line.split(",")[1]), 0)).toBe(shown);
    await page.close();
  });
});
