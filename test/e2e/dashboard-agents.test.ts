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

// Agents and teams: an owner adds a person who can then sign in, changes a role and a limit, makes a team with
// intents and members, and removes someone; an agent sees the team but changes nothing.

let t: DashboardTest;
let owner: DashboardUser;
let agent: DashboardUser;

beforeAll(async () => {
  if (!hasChromium) return;
  t = await startDashboardTest();
  owner = await t.user("owner", "Olga Owner");
  agent = await t.user("agent", "Sam Agent");
}, 120_000);
afterAll(() => t?.close());

describe.runIf(hasChromium)(`the agents and teams page${skipReason}`, () => {
  it("adds a person, changes roles and limits, builds a team, and removes someone", async () => {
    const page = await t.signIn(owner, "agents");
    const row = (name: string) => page.getByRole("row").filter({ hasText: name });
    await expect.poll(() => row("Sam Agent").isVisible()).toBe(true);

    const add = page.getByRole("form", { name: "Add a person" });
    await add.getByLabel("Name").fill("Nia New");
    await add.getByLabel("E-mail").fill("nia@example-bank.com");
    await add.getByLabel("Role").selectOption("admin");
    await add.getByLabel(/^First password/).fill("a long first passphrase");
    await add.getByRole("button", { name: "Add person" }).click();
    await expect.poll(() => row("Nia New").isVisible()).toBe(true);
    const login = await t.app.request("/graphql", {
      key: null,
      body: {
        query: 'mutation { login(email: "nia@example-bank.com", password: "a long first passphrase") { agent { role } } }',
      },
    });
    expect(login.body.data.login.agent.role).toBe("admin");

    await row("Sam Agent").getByLabel("Role of Sam Agent").selectOption("viewer");
    await expect.poll(() => row("Sam Agent").getByText("viewer", { exact: true }).first().isVisible()).toBe(true);
    await row("Sam Agent").getByLabel("Role of Sam Agent").selectOption("agent");
    await expect
      .poll(() =>
        row("Sam Agent")
          .locator(".badge", { hasText: /^agent$/ })
          .isVisible(),
      )
      .toBe(true);
    const limit = row("Sam Agent").getByLabel("Most conversations at once for Sam Agent");
    await limit.fill("8");
    await limit.blur();
    await expect.poll(() => row("Sam Agent").getByText("0 of 8").isVisible()).toBe(true);

    const team = page.getByRole("form", { name: "New team" });
    await team.getByLabel("Name").fill("Card emergencies");
    await team.getByLabel(/^Intents it takes/).fill("card_lost_or_stolen, fraud_report");
    await team.getByLabel("Sam Agent").check();
    await team.getByRole("button", { name: "Create team" }).click();
    await expect.poll(() => row("Sam Agent").getByRole("cell", { name: "Card emergencies" }).isVisible()).toBe(true);
    const stored = await t.app.services.db.prisma.team.findFirstOrThrow({
      where: { tenantId: t.tenant.tenantId },
      include: { members: true },
    });
    expect(stored).toMatchObject({ name: "Card emergencies", intents: ["card_lost_or_stolen", "fraud_report"] });
    expect(stored.members.map((m) => m.userId)).toEqual([agent.id]);
    await expectAccessible(page, "agents");
    await screenshot(page, "agents");

    await row("Nia New").getByRole("button", { name: "Remove Nia New" }).click();
    await expect.poll(() => row("Nia New").count()).toBe(0);
    await page.close();
  });

  it("shows an agent the people and teams without controls", async () => {
    const page = await t.signIn(agent, "agents");
    await expect.poll(() => page.getByRole("heading", { name: "Card emergencies" }).isVisible()).toBe(true);
    expect(await page.getByRole("button", { name: "Add person" }).count()).toBe(0);
    expect(await page.getByRole("button", { name: /^Save team/ }).count()).toBe(0);
    expect(await page.getByRole("columnheader", { name: "Change" }).count()).toBe(0);
    await page.close();
  });
});
