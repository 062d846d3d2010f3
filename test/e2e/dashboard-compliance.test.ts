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
import { seedConversation } from "../helpers/seed.js";

// The Compliance page, visited in sequence by one service and one browser: an admin sets retention periods (the
// API's minimum said in words), asks for a run, holds a conversation, erases its customer (the held conversation is
// kept and listed) and releases the hold; holds a phone number; sees the API's refusals in words; agents and viewers
// do not see the page.

let t: DashboardTest;
let admin: DashboardUser;
let agent: DashboardUser;
let viewer: DashboardUser;
let held: string;
let erased: string;

beforeAll(async () => {
  if (!hasChromium) return;
  t = await startDashboardTest();
  admin = await t.user("admin", "Ana Admin");
  agent = await t.user("agent", "Sam Agent");
  viewer = await t.user("viewer", "Vic Viewer");
  const customer = { channel: "chatapp", customerId: "wa-4915550001234", customerPhone: "+4915550001234" };
  // An earlier conversation, resolved (a customer has one live conversation per channel), is the one held.
  held = await seedConversation(t.app.services, t.tenant.tenantId, { ...customer, status: "resolved" });
  erased = await seedConversation(t.app.services, t.tenant.tenantId, {
    ...customer,
    messages: [
      { role: "customer", content: "Please delete everything you hold about me." },
      { role: "assistant", content: "I have passed your request on." },
      { role: "customer", content: "Thank you." },
    ],
  });
}, 120_000);
afterAll(async () => {
  await t?.close();
});

const tenantSettings = async () =>
  (await t.app.services.db.prisma.tenant.findUniqueOrThrow({ where: { id: t.tenant.tenantId } })).settings as {
    retention?: Record<string, number | null>;
  };

describe.runIf(hasChromium)(`the compliance page${skipReason}`, () => {
  it("sets retention periods, says the API's minimum in words, and queues a run", async () => {
    const page = await t.signIn(admin, "compliance");
    const audit = page.getByRole("group", { name: "Audit records" });
    await audit.getByLabel("Keep for ever").uncheck();
    await audit.getByLabel("Days kept").fill("30");
    await page.getByRole("button", { name: "Save retention periods" }).click();
    await expect.poll(() => page.getByRole("alert").filter({ hasText: "at least 365 days" }).isVisible()).toBe(true);
    expect((await tenantSettings()).retention).toBeUndefined();

    await audit.getByLabel("Days kept").fill("400");
    const messages = page.getByRole("group", { name: "Conversations" });
    await messages.getByLabel("Keep for ever").uncheck();
    await messages.getByLabel("Days kept").fill("90");
    await page.getByRole("button", { name: "Save retention periods" }).click();
    await expect.poll(() => page.getByText("Retention periods saved.").isVisible()).toBe(true);
    expect((await tenantSettings()).retention).toEqual({
      messages: 90,
      identities: null,
      auditRecords: 400,
      knowledgeFiles: null,
      deliveryLogs: null,
    });

    await page.getByRole("button", { name: "Run retention now" }).click();
    await expect.poll(() => page.getByText(/^A retention run is queued \(job \S+\)/).isVisible()).toBe(true);

    await page.reload();
    await expect.poll(() => messages.getByLabel("Days kept").inputValue()).toBe("90");
    expect(await page.getByRole("group", { name: "Delivery logs" }).getByLabel("Keep for ever").isChecked()).toBe(true);
    await page.close();
  });

  it("holds a conversation, erases its customer keeping what the hold covers, then releases the hold", async () => {
    const page = await t.signIn(admin, "compliance");
    const holds = page.getByRole("region", { name: "Legal holds" });
    await expect.poll(() => holds.getByText("No holds").isVisible()).toBe(true);
    const place = page.getByRole("form", { name: "Place a hold" });
    await place.getByLabel("Conversation id").fill(held);
    await place.getByLabel("Reason for the hold").fill("Complaint FOS-2026-118");
    await place.getByRole("button", { name: "Place hold" }).click();
    const holdRow = holds.getByRole("row").filter({ hasText: `Conversation ${held}` });
    await expect.poll(() => holdRow.getByText("Complaint FOS-2026-118").isVisible()).toBe(true);
    expect(await holdRow.getByText(admin.email).isVisible()).toBe(true);
    expect(await holdRow.getByText("active", { exact: true }).isVisible()).toBe(true);

    const erasure = page.getByRole("region", { name: "Erase a customer's data" });
    await erasure.getByLabel("Channel", { exact: true }).selectOption("chatapp");
    await erasure.getByLabel("Customer id on that channel").fill("wa-4915550001234");
    await erasure.getByRole("button", { name: "Erase…" }).click();
    await expect
      .poll(() => erasure.getByText("Erase every conversation of customer wa-4915550001234 on chatapp?").isVisible())
      .toBe(true);
    // Nothing goes before the confirmation.
    expect(await t.app.services.db.prisma.conversation.count({ where: { id: erased } })).toBe(1);
    await erasure.getByRole("button", { name: "Yes, erase for good" }).click();

    const counts = erasure.getByRole("list", { name: "Erased" });
    await expect.poll(() => counts.getByRole("listitem").allTextContents()).toContain("3 Messages");
    expect(await counts.getByRole("listitem").allTextContents()).toContain("1 Conversations");
    const kept = erasure.getByRole("list", { name: "Kept by legal holds" });
    expect(await kept.textContent()).toBe(`Conversation ${held} (hold: Complaint FOS-2026-118)`);
    const left = await t.app.services.db.prisma.conversation.findMany({
      where: { tenantId: t.tenant.tenantId },
      select: { id: true },
    });
    expect(left.map((c) => c.id)).toEqual([held]);
    await expectAccessible(page, "compliance");
    // The erasure's answer is the page's point: the picture starts there.
    await erasure.evaluate((section) => section.scrollIntoView());
    await screenshot(page, "compliance", "here");

    await holdRow.getByRole("button", { name: `Release the hold on Conversation ${held}` }).click();
    const release = page.getByRole("form", { name: `Release the hold on Conversation ${held}` });
    await release.getByLabel(/^Reason for releasing the hold/).fill("Complaint closed");
    await release.getByRole("button", { name: "Release hold" }).click();
    await expect.poll(() => holdRow.getByText("released", { exact: true }).isVisible()).toBe(true);
    expect(await holdRow.getByText(/Complaint closed/).isVisible()).toBe(true);
    const stored = await t.app.services.db.prisma.legalHold.findFirstOrThrow({ where: { conversationId: held } });
    expect(stored).toMatchObject({ releaseReason: "Complaint closed", releasedBy: admin.id });
    await page.close();
  });

  it("holds a phone number on every channel, and says in words what the API refuses", async () => {
    const page = await t.signIn(admin, "compliance");
    const place = page.getByRole("form", { name: "Place a hold" });
    await place.getByLabel("Conversation id").fill("conv_nothere");
    await place.getByLabel("Reason for the hold").fill("Litigation");
    await place.getByRole("button", { name: "Place hold" }).click();
    await expect.poll(() => place.getByRole("alert").textContent()).toBe("Conversation not found");
    expect(await t.app.services.db.prisma.legalHold.count({ where: { conversationId: "conv_nothere" } })).toBe(0);

    await place.getByLabel("Who or what").selectOption({ label: "A phone number, on every channel" });
    await place.getByLabel("Phone number").fill("+41791234567");
    await place.getByRole("button", { name: "Place hold" }).click();
    const row = page.getByRole("region", { name: "Legal holds" }).getByRole("row").filter({ hasText: "Phone +41791234567" });
    await expect.poll(() => row.getByText("Litigation").isVisible()).toBe(true);
    expect(await row.getByRole("cell", { name: "Phone +41791234567 (every channel)", exact: true }).isVisible()).toBe(true);

    const erasure = page.getByRole("region", { name: "Erase a customer's data" });
    await erasure.getByLabel("Who or what").selectOption({ label: "A phone number, on every channel" });
    await erasure.getByLabel("Phone number").fill("not a number");
    await erasure.getByRole("button", { name: "Erase…" }).click();
    await erasure.getByRole("button", { name: "Yes, erase for good" }).click();
    await expect.poll(() => erasure.getByRole("alert").textContent()).toMatch(/phone.*is not a phone number/);
    // The form is back for a correction.
    expect(await erasure.getByRole("button", { name: "Erase…" }).isVisible()).toBe(true);
    await page.close();
  });

  it("is usable at phone width", async () => {
    const page = await t.signIn(admin, "compliance", { width: 390, height: 844 });
    await expect.poll(() => page.getByRole("table", { name: "Legal holds" }).isVisible()).toBe(true);
    // The page itself does not scroll sideways: a wide table scrolls inside its own box.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await expectAccessible(page, "compliance at phone width");
    await page.close();
  });

  for (const role of ["agent", "viewer"] as const) {
    it(`is not offered to ${role === "agent" ? "an agent" : "a viewer"}`, async () => {
      const user = role === "agent" ? agent : viewer;
      const page = await t.signIn(user, "compliance");
      await expect.poll(() => page.getByText(`Your role (${role}) may not open Compliance.`).isVisible()).toBe(true);
      const nav = page.getByRole("navigation", { name: "Sections" });
      expect(await nav.getByRole("link", { name: "Inbox" }).isVisible()).toBe(true);
      expect(await nav.getByRole("link", { name: "Compliance" }).count()).toBe(0);
      expect(await page.getByRole("button", { name: "Save retention periods" }).count()).toBe(0);
      await page.close();
    });
  }
});
