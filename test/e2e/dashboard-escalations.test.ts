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
import { seedConversation } from "../helpers/seed.js";

// The escalations queue: reason, priority, waiting time, team and assignee; an agent takes and resolves, an admin
// assigns, a new escalation appears live, a viewer only reads.

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
}, 120_000);
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
    await expect.poll(() => row("Waiting Customer 21").getByRole("cell", { name: "Sam Agent" }).isVisible()).toBe(true);
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
