import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CreateEscalationForTestDocument } from "../generated.js";
import {
  type DashboardTest,
  type DashboardUser,
  expectAccessible,
  hasChromium,
  screenshot,
  skipReason,
  startDashboardTest,
} from "../helpers/dashboard.js";
import { seedConversation, seedFeedback, seedHistory } from "../helpers/seed.js";

// The team's overview pages, visited in sequence by one service and one browser:
// - Escalations: reason, priority, waiting time, team and assignee; an agent takes and resolves, an admin assigns,
//   a new escalation appears live, a viewer only reads.
// - Analytics: a month of a busy tenant's conversations as cards and charts (customers' feedback and hand-offs asked
//   out of hours included), narrowed to a channel, and the CSV of what is shown.

let t: DashboardTest;
let agent: DashboardUser;
let admin: DashboardUser;
let viewer: DashboardUser;

async function escalate(customerName: string, priority?: "urgent" | "high" | "low") {
  const conversationId = await seedConversation(t.app.services, t.tenant.tenantId, { channel: "api" });
  await t.app.services.db.prisma.conversation.update({ where: { id: conversationId }, data: { customerName } });
  const res = await t.app.graphql(CreateEscalationForTestDocument, { conversationId, priority }, t.tenant.apiKey);
  expect(res.errors).toBeUndefined();
  return res.data!.createEscalation.id;
}

beforeAll(async () => {
  if (!hasChromium) return;
  t = await startDashboardTest();
  agent = await t.user("agent", "Sam Agent");
  admin = await t.user("admin", "Ana Admin");
  viewer = await t.user("viewer", "Vic Viewer");
  for (let i = 0; i < 30; i++) await escalate(`Waiting Customer ${i}`, i % 7 === 0 ? "urgent" : undefined);
  await seedHistory(t.app.services, t.tenant.tenantId, { conversations: 2_400 });
  await seedFeedback(t.app.services, t.tenant.tenantId);
  // Four of the hand-offs were asked for while the team was away.
  await t.app.services.db.prisma.escalation.updateMany({
    where: {
      tenantId: t.tenant.tenantId,
      conversation: { customerName: { in: [0, 1, 2, 3].map((i) => `Waiting Customer ${i}`) } },
    },
    data: { outOfHours: true },
  });
}, 120_000);

/** The analytics page's default window: the last 30 days, to the end of today (UTC). */
function pageWindow() {
  const today = new Date(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`);
  return { gte: new Date(today.getTime() - 29 * 86_400_000), lt: new Date(today.getTime() + 86_400_000) };
}

/** Feedback figures of the window, counted from the rows themselves. */
async function feedbackIn(channel: string) {
  const prisma = t.app.services.db.prisma;
  const where = { tenantId: t.tenant.tenantId, channel };
  const up = await prisma.messageFeedback.count({ where: { ...where, rating: "up", createdAt: pageWindow() } });
  const down = await prisma.messageFeedback.count({ where: { ...where, rating: "down", createdAt: pageWindow() } });
  const surveys = await prisma.satisfactionSurvey.aggregate({
    where: { ...where, askedAt: pageWindow() },
    _count: { _all: true, score: true },
    _avg: { score: true },
  });
  return { up, down, asked: surveys._count._all, answered: surveys._count.score, average: surveys._avg.score };
}
afterAll(() => t?.close());

describe.runIf(hasChromium)(`the escalations queue${skipReason}`, () => {
  it("lets an agent take and resolve an escalation, and shows new ones live", async () => {
    const page = await t.signIn(agent, "escalations");
    const row = (name: string) => page.getByRole("row").filter({ hasText: name });
    await expect.poll(() => row("Waiting Customer 29").isVisible()).toBe(true);
    expect(await row("Waiting Customer 28").getByText("Manual").isVisible()).toBe(true);
    await expectAccessible(page, "escalations");
    await screenshot(page, "escalations");

    await row("Waiting Customer 28").getByRole("button", { name: "Take" }).click();
    await expect.poll(() => row("Waiting Customer 28").getByText("Sam Agent").isVisible()).toBe(true);
    await row("Waiting Customer 28").getByRole("button", { name: "Resolve" }).click();
    await expect.poll(() => row("Waiting Customer 28").getByText("resolved", { exact: true }).isVisible()).toBe(true);
    const conversation = await t.app.services.db.prisma.escalation.findFirstOrThrow({
      where: { tenantId: t.tenant.tenantId, conversation: { customerName: "Waiting Customer 28" } },
    });
    expect(conversation).toMatchObject({ status: "resolved", assigneeId: agent.id });

    await escalate("Brand New Customer", "urgent");
    await expect.poll(() => row("Brand New Customer").isVisible()).toBe(true);
    expect(await row("Brand New Customer").getByText("urgent").isVisible()).toBe(true);
    await page.close();
  });

  it("lets an admin assign to anyone, and filter", async () => {
    const page = await t.signIn(admin, "escalations");
    const row = (name: string) => page.getByRole("row").filter({ hasText: name });
    await expect.poll(() => row("Waiting Customer 20").count()).toBe(1);
    await page.getByLabel("Priority").selectOption("urgent");
    await expect
      .poll(async () => [await row("Waiting Customer 20").count(), await row("Waiting Customer 21").count()])
      .toEqual([0, 1]);
    await row("Waiting Customer 21")
      .getByLabel("Assign the escalation of Waiting Customer 21 to")
      .selectOption({ label: "Sam Agent" });
    await expect
      .poll(() => row("Waiting Customer 21").getByRole("cell", { name: "Sam Agent", exact: true }).isVisible())
      .toBe(true);
    await page.close();
  });

  it("shows a viewer the queue without actions", async () => {
    const page = await t.signIn(viewer, "escalations");
    await expect.poll(() => page.getByRole("row").filter({ hasText: "Waiting Customer 3" }).first().isVisible()).toBe(true);
    expect(await page.getByRole("button", { name: /^Take/ }).count()).toBe(0);
    expect(await page.getByRole("columnheader", { name: "Actions" }).count()).toBe(0);
    await page.close();
  });
});

describe.runIf(hasChromium)(`the analytics page${skipReason}`, () => {
  it("shows the figures and charts, narrows them to a channel, and downloads what is shown as CSV", async () => {
    const page = await t.signIn(viewer, "analytics");
    const conversations = page.locator(".card", { hasText: "conversations" }).first();
    await expect.poll(() => conversations.textContent()).toMatch(/^2,\d{3} conversations/);
    await expect.poll(() => page.getByRole("img", { name: "Conversations per day by channel" }).isVisible()).toBe(true);
    await expect.poll(() => page.getByText("resolved by the AI").isVisible()).toBe(true);
    await expect
      .poll(() => page.getByRole("figure").filter({ hasText: "Top intents" }).getByText("opening_hours").isVisible())
      .toBe(true);
    const card = (label: string) => page.locator(".card", { hasText: label });
    expect(await card("hand-offs asked out of hours").textContent()).toMatch(/^4 hand-offs asked out of hours/);
    const [, chosen, offered] = /^[\d.]+ % listed questions chosen · (\d+) of (\d+) declines that listed some$/
      .exec((await card("listed questions chosen").textContent())!)!
      .map(Number);
    expect(chosen).toBeGreaterThan(0);
    expect(offered).toBeGreaterThan(chosen!);
    await expectAccessible(page, "analytics");
    await screenshot(page, "analytics");

    await page.getByLabel("Channel", { exact: true }).selectOption("sms");
    await expect.poll(() => conversations.textContent()).toMatch(/^\d{3} conversations/);
    const shown = Number((await conversations.textContent())!.match(/^(\d+)/)![1]);
    const sms = await feedbackIn("sms");
    expect(sms.up).toBeGreaterThan(0);
    expect(sms.answered).toBeGreaterThan(0);
    await expect.poll(() => card("thumbs up on AI replies").textContent()).toContain(`${sms.up} up, ${sms.down} down`);
    expect(await card("satisfaction (1 to 5)").textContent()).toBe(
      `${sms.average!.toFixed(1)} satisfaction (1 to 5) · ${sms.answered} of ${sms.asked} answered`,
    );
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
    expect(csv).toContain(`thumbs_up,${sms.up}`);
    expect(csv).toContain(`thumbs_down,${sms.down}`);
    expect(csv).toContain(`satisfaction_answered,${sms.answered}`);
    const byChannel = csv.findIndex((line) => line.startsWith("channel,thumbs up,"));
    expect(csv[byChannel + 1]).toMatch(new RegExp(`^sms,${sms.up},${sms.down},`));
    await page.close();
  });
});
