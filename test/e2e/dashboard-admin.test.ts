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

// The configuration pages, visited in sequence by one service and one browser:
// - Channels: an admin connects WhatsApp from its form (secrets write-only), copies the webhook URL, sends a test
//   message that reaches the fake provider, disables the channel; adds a voice; a viewer only reads.
// - Intents: an admin creates one, imports examples from a CSV file, and tries the classifier; a viewer only tries it.
// - Agents and teams: an owner adds a person who can then sign in, changes a role and a limit, makes a team with
//   intents and members, and removes someone; an agent sees the team but changes nothing.
// - Settings: an owner changes the bank's profile, persona, PII redaction and rate limit, creates an API key shown
//   once (it works, with its role) and revokes it, sets up the widget and previews it on the page; an admin does not
//   see the keys.

let providers: FakeProviders;
let t: DashboardTest;
let owner: DashboardUser;
let admin: DashboardUser;
let agent: DashboardUser;
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
  providers = await startFakeProviders();
  t = await startDashboardTest({ ...providers.env, PUBLIC_BASE_URL: "https://parley.example-bank.com" });
  await configureChannel(t.app, t.tenant.apiKey, "botmsg", {
    bot_token: "7012345678:AAEhBOweik6ad9r_QXMENQjcrGbqCr4K-TA",
    secret_token: "telegram_secret_0123456789",
  });
  owner = await t.user("owner", "Olga Owner");
  admin = await t.user("admin", "Ana Admin");
  agent = await t.user("agent", "Sam Agent");
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
    await expect
      .poll(() => page.getByRole("region", { name: "Voices" }).getByText("selected", { exact: true }).isVisible())
      .toBe(true);
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
    await expect
      .poll(() => snippet.inputValue())
      .toMatch(/^<script src="https:\/\/parley\.example-bank\.com\/widget\.js" data-key="[\w-]+"/);
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
