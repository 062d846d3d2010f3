import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BankSite, startBankSite } from "../fakes/bank-site.js";
import {
  type DashboardTest,
  type DashboardUser,
  expectAccessible,
  hasChromium,
  screenshot,
  skipReason,
  startDashboardTest,
} from "../helpers/dashboard.js";
import { seedHistory, seedSourceList } from "../helpers/seed.js";
import { pdfWithPages } from "../knowledge/knowledge-api.js";

// Knowledge: dozens of sources with live status, a crawl, a text and a PDF added from the page, the test console's
// ranked chunks, an unanswered question answered in one click, resync and delete; a viewer only reads and searches.

let site: BankSite;
let t: DashboardTest;
let admin: DashboardUser;
let viewer: DashboardUser;

beforeAll(async () => {
  if (!hasChromium) return;
  site = await startBankSite();
  t = await startDashboardTest({ EGRESS_ALLOW_CIDRS: "127.0.0.0/8" });
  t.app.startWorker();
  await seedSourceList(t.app.services, t.tenant.tenantId, 36);
  await seedHistory(t.app.services, t.tenant.tenantId, { conversations: 40 });
  admin = await t.user("admin", "Ana Admin");
  viewer = await t.user("viewer", "Vic Viewer");
}, 120_000);
afterAll(async () => {
  await t?.close();
  await site?.close();
});

const sourceRow = (page: import("playwright-core").Page, title: string) => page.getByRole("row").filter({ hasText: title });

describe.runIf(hasChromium)(`the knowledge page${skipReason}`, () => {
  it("adds a web site, a text and a PDF, and shows each one's status as it changes", async () => {
    const page = await t.signIn(admin, "knowledge");
    await expect.poll(() => sourceRow(page, "Help page 36").isVisible()).toBe(true);

    await page.getByLabel("Address").fill(`${site.url}/`);
    const crawled = page.getByRole("row").filter({ has: page.locator(`a[href="${site.url}/"]`) });
    await page.getByRole("button", { name: "Add source" }).click();
    await expect.poll(() => crawled.getByText("ready", { exact: true }).isVisible(), { timeout: 60_000 }).toBe(true);
    expect(await crawled.getByRole("cell", { name: "3", exact: true }).count()).toBeGreaterThan(0);

    await page.getByLabel("Text", { exact: true }).check();
    await page.getByLabel("Title").fill("Savings FAQ");
    await page
      .getByRole("textbox", { name: "Text" })
      .fill("Q: What does the Easy Saver pay?\nA: The Easy Saver pays 2.1 % a year on any balance.");
    await page.getByRole("button", { name: "Add source" }).click();
    await expect.poll(() => sourceRow(page, "Savings FAQ").getByText("ready", { exact: true }).isVisible()).toBe(true);

    await page.getByLabel("PDF", { exact: true }).check();
    await page.getByLabel("Title (optional)").fill("Tariffs 2026");
    const pdf = await pdfWithPages(["Account fees: the current account costs 4 euros a month, free under 26."]);
    await page
      .getByLabel("PDF file (at most 20 MiB)")
      .setInputFiles({ name: "tariffs.pdf", mimeType: "application/pdf", buffer: Buffer.from(pdf) });
    await page.getByRole("button", { name: "Add source" }).click();
    await expect
      .poll(() => sourceRow(page, "Tariffs 2026").getByText("ready", { exact: true }).isVisible(), { timeout: 60_000 })
      .toBe(true);

    await page.getByLabel("A customer's question").fill("When are the branches open on Saturday?");
    await page.getByRole("button", { name: "Search" }).click();
    const hits = page.getByRole("list", { name: "Chunks the AI would be given, best first" });
    await expect.poll(() => hits.getByText("Branches and opening hours").first().isVisible()).toBe(true);
    expect(await hits.getByText(/score 0\.\d+ · similarity/).count()).toBeGreaterThan(0);
    await expectAccessible(page, "knowledge");
    await screenshot(page, "knowledge");
    await page.close();
  }, 180_000);

  it("turns an unanswered question into a source in one click, and resyncs and deletes", async () => {
    const page = await t.signIn(admin, "knowledge");
    const answer = page.getByRole("button", { name: /^Answer it/ }).first();
    await expect.poll(() => answer.isVisible()).toBe(true);
    const question = (await answer.textContent())!.replace(/^Answer it: /, "");
    await answer.click();
    const text = page.getByRole("textbox", { name: "Text" });
    await expect.poll(() => text.inputValue()).toBe(`Q: ${question}\nA: `);
    await text.press("End");
    await text.pressSequentially("Call us on 0800 123 456.");
    await page.getByRole("button", { name: "Add source" }).click();
    await expect.poll(() => sourceRow(page, question).getByText("ready", { exact: true }).isVisible()).toBe(true);

    await sourceRow(page, "Savings FAQ").getByRole("button", { name: "Resync Savings FAQ" }).click();
    await expect.poll(() => sourceRow(page, "Savings FAQ").getByText("ready", { exact: true }).isVisible()).toBe(true);
    await sourceRow(page, "Help page 7").getByRole("button", { name: "Delete Help page 7" }).click();
    await sourceRow(page, "Help page 7").getByRole("button", { name: "Confirm delete of Help page 7" }).click();
    await expect.poll(() => sourceRow(page, "Help page 7").count()).toBe(0);
    expect(
      await t.app.services.db.prisma.knowledgeSource.count({ where: { tenantId: t.tenant.tenantId, title: "Help page 7" } }),
    ).toBe(0);
    await page.close();
  });

  it("lets a viewer search but not change the knowledge base", async () => {
    const page = await t.signIn(viewer, "knowledge");
    await expect.poll(() => sourceRow(page, "Savings FAQ").isVisible()).toBe(true);
    expect(await page.getByRole("button", { name: "Add source" }).count()).toBe(0);
    expect(await page.getByRole("button", { name: /^Delete/ }).count()).toBe(0);
    expect(await page.getByRole("button", { name: /^Answer it/ }).count()).toBe(0);
    await page.getByLabel("A customer's question").fill("What does the Easy Saver pay?");
    await page.getByRole("button", { name: "Search" }).click();
    await expect
      .poll(() =>
        page
          .getByRole("list", { name: /Chunks the AI/ })
          .getByText("Savings FAQ")
          .first()
          .isVisible(),
      )
      .toBe(true);
    await page.close();
  });
});
