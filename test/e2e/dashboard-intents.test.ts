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

// Intents: an admin creates one, imports examples from a CSV file, edits examples, and tries the classifier; a
// viewer only tries the classifier.

let t: DashboardTest;
let admin: DashboardUser;
let viewer: DashboardUser;

const csv = [
  "text,intent",
  "where is my mortgage offer,mortgage_status",
  "has my mortgage been approved,mortgage_status",
  "when will the mortgage decision come,mortgage_status",
  '"I want to open a savings account, please",open_savings',
  "how do I open a savings account,open_savings",
  "can I start a new saver online,open_savings",
].join("\n");

beforeAll(async () => {
  if (!hasChromium) return;
  t = await startDashboardTest();
  admin = await t.user("admin", "Ana Admin");
  viewer = await t.user("viewer", "Vic Viewer");
}, 120_000);
afterAll(() => t?.close());

describe.runIf(hasChromium)(`the intents page${skipReason}`, () => {
  it("creates an intent, imports a CSV of examples, and classifies with the trained model", async () => {
    const page = await t.signIn(admin, "intents");
    await page.getByLabel("Name", { exact: true }).fill("card_fraud");
    await page.getByLabel("Urgent: hand to a person at once").check();
    await page
      .getByLabel("Examples, one per line")
      .fill("someone used my card\nthere is a payment I did not make\nmy card was used abroad without me");
    await page.getByRole("button", { name: "Create intent" }).click();
    await expect.poll(() => page.getByRole("row").filter({ hasText: "card_fraud" }).getByText("urgent").isVisible()).toBe(true);

    await page
      .getByLabel("CSV file with the columns text,intent")
      .setInputFiles({ name: "examples.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
    await page.getByRole("button", { name: "Import" }).click();
    await expect.poll(() => page.getByText("Imported 6 examples into 2 intents (2 new).").isVisible()).toBe(true);
    await expect.poll(() => page.getByRole("row").filter({ hasText: "open_savings" }).isVisible()).toBe(true);
    const stored = await t.app.services.db.prisma.intentExample.count({ where: { tenantId: t.tenant.tenantId } });
    expect(stored).toBe(9);

    await page
      .getByLabel("Customer messages, one per line")
      .fill("has the mortgage been approved yet\nsomeone used my card in a shop");
    await page.getByRole("button", { name: "Classify" }).click();
    const predictions = page.getByRole("list", { name: "Predictions" });
    await expect.poll(() => predictions.getByText("mortgage_status").isVisible(), { timeout: 30_000 }).toBe(true);
    expect(await predictions.getByText("card_fraud").isVisible()).toBe(true);
    await expectAccessible(page, "intents");
    await screenshot(page, "intents");
    await page.close();
  });

  it("lets a viewer try the classifier but not change intents", async () => {
    const page = await t.signIn(viewer, "intents");
    await expect.poll(() => page.getByRole("row").filter({ hasText: "card_fraud" }).isVisible()).toBe(true);
    expect(await page.getByRole("button", { name: "Create intent" }).count()).toBe(0);
    expect(await page.getByRole("button", { name: "Import" }).count()).toBe(0);
    await page.getByLabel("Customer messages, one per line").fill("I would like to open a savings account");
    await page.getByRole("button", { name: "Classify" }).click();
    await expect.poll(() => page.getByRole("list", { name: "Predictions" }).getByText("open_savings").isVisible()).toBe(true);
    await page.close();
  });
});
