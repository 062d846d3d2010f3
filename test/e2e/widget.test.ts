import { mkdirSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "../../src/db/ids.js";
import { deliverReply } from "../../src/pipeline/deliver.js";
import type { Services } from "../../src/services.js";
import { newBankFaq } from "../fixtures/new-bank-faq.js";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { hasChromium, launchChromium, skipReason } from "../helpers/chromium.js";
import { testTempDir } from "../helpers/temp.js";

// The widget in a real browser (Debian's Chromium driven by playwright-core): a bank's page on another origin
// embeds it with the script tag, as a tenant would.

const artifacts = path.resolve("test-results");

let app: TestApp;
let host: Server;
let hostPort: number;
let profile: string;
let browser: BrowserContext;
let tenant: { tenantId: string; apiKey: string };
let token: string;

/** The bank's page: its own CSS is hostile on purpose, the widget must look and work the same despite it. */
function hostPage(scriptUrl: string, key: string, position: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Example Bank</title>
<style>
  * { font-family: "Courier New", monospace !important; color: #c00 !important; box-sizing: content-box !important; }
  button { display: none !important; }
  ol, li, section, textarea { display: inline !important; background: yellow !important; }
  parley-chat { display: none !important; }
</style></head>
<body><h1 id="brand">Example Bank</h1><p id="copy">Current accounts, savings and cards.</p><button id="own">Log in</button>
<script src="${scriptUrl}" data-key="${key}" data-position="${position}" defer></script>
</body></html>`;
}

/**
 * The offline engine writes its whole answer within a few milliseconds, which reaches the browser in one read;
 * a model server writes it over seconds. Its pieces are given out as slowly here, so that the test sees what a
 * visitor sees: the reply growing on screen.
 */
function writeSlowly(services: Services): void {
  const engine = services.engine;
  services.engine = {
    name: engine.name,
    async answer(input, onDelta) {
      const pieces: string[] = [];
      const answer = await engine.answer(input, (piece) => pieces.push(piece));
      for (const piece of pieces) {
        await new Promise((resolve) => setTimeout(resolve, 40));
        onDelta?.(piece);
      }
      return answer;
    },
  };
}

/** Page URL on the bank's site: `localhost` is on the allow-list, `127.0.0.1` (another origin) is not. */
const bankPage = (hostname: string, query: Record<string, string> = {}) =>
  `http://${hostname}:${hostPort}/?${new URLSearchParams(query)}`;

/** Everything in the widget's shadow root that a test looks at. */
const widget = (page: Page) => ({
  launcher: page.locator("parley-chat .launcher"),
  panel: page.locator("parley-chat .panel"),
  input: page.locator("parley-chat textarea"),
  notice: page.locator("parley-chat .notice"),
  messages: page.locator("parley-chat .msg .bubble"),
  assistant: page.locator("parley-chat .msg.assistant .bubble"),
  agent: page.locator("parley-chat .msg.agent .bubble"),
});

/** The element focused inside the widget, as `tag.class`, or null when focus is outside it. */
const focusedInWidget = (page: Page) =>
  page.evaluate(() => {
    const shadow = document.querySelector("parley-chat")?.shadowRoot;
    const active = shadow?.activeElement;
    return active ? `${active.tagName.toLowerCase()}.${active.className}` : null;
  });

/** The tenant's widget channel, allowed on the bank's page (`localhost`), and a token for its script tag. */
async function embed(apiKey: string, title: string): Promise<string> {
  const channel = await app.request("/api/tenant/channels/widget", {
    method: "PUT",
    key: apiKey,
    body: {
      settings: {
        allowed_origins: [`http://localhost:${hostPort}`],
        title,
        greeting: "Hello! How can we help?",
        primary_color: "#0d6b4f",
      },
    },
  });
  expect(channel.status).toBe(201);
  return (await app.request("/api/widget/tokens", { key: apiKey, body: {} })).body.token;
}

beforeAll(async () => {
  if (!hasChromium) return;
  mkdirSync(artifacts, { recursive: true });
  app = await startTestApp();
  tenant = await app.tenant("Example Bank");
  const added = await app.request("/api/knowledge/sources", {
    key: tenant.apiKey,
    body: {
      type: "manual",
      title: "Cards FAQ",
      content: "To reset your card PIN, open the mobile app, choose Cards, then Reset PIN. The new PIN works at once.",
    },
  });
  expect(added.status).toBe(201);
  writeSlowly(app.services);
  host = createServer((req, res) => {
    const query = new URL(req.url ?? "/", "http://bank").searchParams;
    const key = query.get("token") ?? token;
    res.setHeader("content-type", "text/html; charset=utf-8");
    res.end(hostPage(`${app.url}/widget.js`, key, query.get("position") ?? "bottom-right"));
  }).listen(0, "127.0.0.1");
  await new Promise((resolve) => host.once("listening", resolve));
  hostPort = (host.address() as AddressInfo).port;
  token = await embed(tenant.apiKey, "Example Bank");
  profile = testTempDir("parley-chromium");
  browser = await launchChromium(profile, [], { width: 1280, height: 800 });
});

afterAll(async () => {
  await browser?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
  host?.close();
  await app?.close();
});

describe.skipIf(!hasChromium)(`the widget in Chromium${skipReason}`, () => {
  let page: Page;

  it("shows its launcher on a page of another origin, untouched by the page's CSS and leaving the page alone", async () => {
    page = await browser.newPage();
    await page.goto(bankPage("localhost"));
    const { launcher, panel } = widget(page);
    await launcher.waitFor({ state: "visible" });
    await expect.poll(() => launcher.getAttribute("aria-label")).toBe("Open chat: Example Bank");
    expect(await launcher.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe("rgb(13, 107, 79)");
    const box = (await launcher.boundingBox())!;
    expect(box.x + box.width).toBeGreaterThan(1200);
    expect(box.y + box.height).toBeGreaterThan(740);
    expect(await panel.isHidden()).toBe(true);
    // The page keeps its own look.
    expect(await page.locator("#copy").evaluate((el) => getComputedStyle(el).color)).toBe("rgb(204, 0, 0)");
    expect(await page.locator("#own").isHidden()).toBe(true);
  });

  it("opens with the keyboard, keeps focus inside, and closes on Escape back to the launcher", async () => {
    const { launcher, panel } = widget(page);
    await launcher.focus();
    await page.keyboard.press("Enter");
    await panel.waitFor({ state: "visible" });
    expect(await panel.getAttribute("role")).toBe("dialog");
    expect(await focusedInWidget(page)).toBe("textarea.");
    for (let i = 0; i < 4; i++) {
      await page.keyboard.press("Tab");
      expect(await focusedInWidget(page)).not.toBeNull();
    }
    await page.keyboard.press("Escape");
    await panel.waitFor({ state: "hidden" });
    expect(await focusedInWidget(page)).toBe("button.launcher");
    expect(await launcher.getAttribute("aria-expanded")).toBe("false");
  });

  it("streams the answer from the knowledge base, with a typing indicator, and reads it out when done", async () => {
    const { launcher, input, assistant } = widget(page);
    await launcher.click();
    // The AI disclosure comes first, before the visitor writes anything.
    await expect
      .poll(() => assistant.first().textContent())
      .toBe(
        "You are chatting with Example Bank's virtual assistant, an AI and not a person. You can ask for a person at any time.",
      );
    expect(await assistant.nth(1).textContent()).toBe("Hello! How can we help?");
    // What the visitor sees while the reply is written, recorded as it happens.
    await page.evaluate(() => {
      const shadow = document.querySelector("parley-chat")!.shadowRoot!;
      const seen = { typing: false, texts: [] as string[] };
      (window as unknown as { seen: typeof seen }).seen = seen;
      new MutationObserver(() => {
        if (!shadow.querySelector<HTMLElement>(".typing")!.hidden) seen.typing = true;
        const last = [...shadow.querySelectorAll(".msg.assistant .bubble")].at(-1)?.textContent ?? "";
        if (last !== seen.texts.at(-1)) seen.texts.push(last);
      }).observe(shadow, { subtree: true, childList: true, characterData: true, attributes: true });
    });
    const streamed = page.waitForResponse((res) => res.url().endsWith("/api/v1/widget/message"));
    await input.fill("How do I reset my card PIN?");
    await input.press("Enter");
    expect((await streamed).headers()["content-type"]).toContain("text/event-stream");
    await expect.poll(() => assistant.last().textContent(), { timeout: 10_000 }).toMatch(/Reset PIN.*\)$/);
    const seen = await page.evaluate(() => (window as unknown as { seen: { typing: boolean; texts: string[] } }).seen);
    expect(seen.typing).toBe(true);
    const answer = seen.texts.at(-1)!;
    expect(seen.texts.filter((text) => text && text !== answer && answer.startsWith(text)).length).toBeGreaterThan(0);
    await expect.poll(() => page.locator('parley-chat [aria-live="polite"]').textContent()).toContain("Reset PIN");
    const panelBox = (await widget(page).panel.boundingBox())!;
    // The open widget with its launcher: the picture of the README (docs/widget.png is a copy of it).
    await page.screenshot({
      path: path.join(artifacts, "widget.png"),
      clip: { x: panelBox.x - 24, y: panelBox.y - 24, width: 1280 - panelBox.x + 24, height: 800 - panelBox.y + 24 },
    });
  });

  it("shows an agent's reply live when a human has taken the conversation over", async () => {
    const conversation = await app.services.db.prisma.conversation.findFirstOrThrow({
      where: { tenantId: tenant.tenantId, channel: "widget" },
    });
    await deliverReply(app.services, {
      id: newId("msg"),
      tenantId: tenant.tenantId,
      conversationId: conversation.id,
      channel: "widget",
      role: "agent",
      content: "Hello, this is Sam from the cards team. Can I help with anything else?",
      metadata: {},
    });
    await expect.poll(() => widget(page).agent.last().textContent(), { timeout: 10_000 }).toContain("Sam from the cards team");
  });

  it("keeps the conversation, and the open panel, across a reload", async () => {
    await page.reload();
    const { panel, messages } = widget(page);
    await panel.waitFor({ state: "visible" });
    await expect.poll(() => messages.count()).toBe(5);
    const texts = await messages.allTextContents();
    expect(texts[1]).toContain("How do I reset my card PIN?");
    expect(texts[2]).toContain("an AI and not a person");
    expect(texts[3]).toContain("Reset PIN");
    expect(texts[4]).toContain("Sam from the cards team");
  });

  it("rates a reply with its thumbs from the keyboard, and answers the satisfaction question once resolved", async () => {
    // Only the AI's answer takes a rating: not the greeting, the disclosure or the agent's reply.
    const helpful = page.locator('parley-chat .msg.assistant .rate button[aria-label="Helpful"]');
    await expect.poll(() => helpful.count()).toBe(1);
    const rated = page.waitForResponse((res) => res.url().endsWith("/api/v1/widget/feedback"));
    await helpful.focus();
    await page.keyboard.press("Enter");
    expect((await rated).status()).toBe(200);
    expect(await helpful.getAttribute("aria-pressed")).toBe("true");
    const feedback = await app.services.db.prisma.messageFeedback.findFirstOrThrow({ where: { tenantId: tenant.tenantId } });
    expect(feedback).toMatchObject({ rating: "up", source: "widget" });

    const conversation = await app.services.db.prisma.conversation.findFirstOrThrow({
      where: { tenantId: tenant.tenantId, channel: "widget" },
    });
    const escalated = await app.request("/api/escalations", { key: tenant.apiKey, body: { conversation_id: conversation.id } });
    const resolved = await app.request("/api/escalations", {
      method: "PUT",
      key: tenant.apiKey,
      body: { id: escalated.body.id, status: "resolved" },
    });
    expect(resolved.status).toBe(200);
    const five = page.locator('parley-chat .survey button[aria-label="5 out of 5"]');
    await five.waitFor({ state: "visible", timeout: 10_000 });
    const scored = page.waitForResponse((res) => res.url().endsWith("/api/v1/widget/satisfaction"));
    await five.focus();
    await page.keyboard.press("Space");
    expect((await scored).status()).toBe(200);
    expect(await five.getAttribute("aria-pressed")).toBe("true");
    const survey = await app.services.db.prisma.satisfactionSurvey.findFirstOrThrow({
      where: { conversationId: conversation.id },
    });
    expect(survey.score).toBe(5);
  });

  it("says so when the visitor is rate-limited, and gives the message back to send later", async () => {
    // A token of its own: its counter starts at zero, and the tenant's limit lets only the page's init through.
    const fresh = (await app.request("/api/widget/tokens", { key: tenant.apiKey, body: {} })).body.token;
    // Written behind the API's back: announced as the API announces its changes (instances cache settings).
    const limit = async (settings: object) => {
      await app.services.db.prisma.tenant.update({ where: { id: tenant.tenantId }, data: { settings } });
      app.services.tenants.changed(tenant.tenantId);
    };
    await limit({ rateLimitMax: 1 });
    const limited = await browser.newPage();
    try {
      await limited.goto(bankPage("localhost", { token: fresh }));
      const { launcher, notice, input, messages } = widget(limited);
      await launcher.click();
      // The greeting, and the conversation so far: question, disclosure, answer, the agent's reply, the hand-off
      // notice and the satisfaction question.
      await expect.poll(() => messages.count()).toBe(7);
      await input.fill("And on Sundays?");
      await input.press("Enter");
      await expect.poll(() => notice.textContent()).toMatch(/^You are sending messages too quickly\. Please wait \d+ seconds\.$/);
      expect(await input.inputValue()).toBe("And on Sundays?");
      expect(await messages.count()).toBe(7);
      expect(await limited.locator("parley-chat .send").isDisabled()).toBe(true);
    } finally {
      await limit({});
      await limited.close();
    }
  });

  it("says so when the browser is offline, and recovers when it is back", async () => {
    const { notice, input } = widget(page);
    await browser.setOffline(true);
    await expect.poll(() => notice.textContent()).toContain("You are offline");
    await input.fill("Are you still there?");
    expect(await page.locator("parley-chat .send").isDisabled()).toBe(true);
    await browser.setOffline(false);
    await notice.waitFor({ state: "hidden" });
    await page.close();
  });

  it("offers the questions of a decline as buttons that ask them, after a reload too, and takes them away once used", async () => {
    const bank = await app.tenant("New Bank");
    const faq = await app.request("/api/knowledge/sources", {
      key: bank.apiKey,
      body: { type: "manual", title: "Bank FAQ", content: newBankFaq },
    });
    expect(faq.status).toBe(201);
    const visitor = await browser.newPage();
    try {
      await visitor.goto(bankPage("localhost", { token: await embed(bank.apiKey, "New Bank") }));
      const { launcher, input, assistant, messages } = widget(visitor);
      const offered = visitor.locator('parley-chat .suggestions[aria-label="Questions you may have meant"] button');
      await launcher.click();
      await input.fill("the limit for taking cash out");
      await input.press("Enter");
      await expect
        .poll(() => offered.first().textContent(), { timeout: 10_000 })
        .toBe("How much can I withdraw from an ATM per day?");
      // The buttons name the questions the reply lists by number.
      const listed = await offered.allTextContents();
      const decline = (await assistant.last().textContent())!;
      expect(decline).toContain(listed.map((question, i) => `${i + 1}. ${question}`).join("\n"));
      // The conversation is kept: a reload offers them again under the same reply.
      await visitor.reload();
      await expect.poll(() => offered.allTextContents(), { timeout: 10_000 }).toEqual(listed);
      await visitor.screenshot({ path: path.join(artifacts, "widget-suggestions.png") });
      const before = await messages.count();
      await offered.first().click();
      await expect
        .poll(() => assistant.last().textContent(), { timeout: 10_000 })
        .toContain("The daily ATM withdrawal limit is 1,000 EUR.");
      expect(await visitor.locator("parley-chat .msg.customer .bubble").last().textContent()).toBe(listed[0]);
      expect(await messages.count()).toBe(before + 2);
      expect(await offered.count()).toBe(0);
      // The bank sees how often a listed question was what its customer wanted (once the streamed reply is stored).
      await expect
        .poll(async () => (await app.request("/api/analytics", { key: bank.apiKey })).body.listed_questions, { timeout: 10_000 })
        .toEqual({ offered: 1, chosen: 1, rate: 1 });
    } finally {
      await visitor.close();
    }
  });

  it("fills a phone-width screen", async () => {
    const phone = await browser.newPage();
    await phone.setViewportSize({ width: 375, height: 720 });
    await phone.goto(bankPage("localhost", { position: "top-left" }));
    const { launcher, panel } = widget(phone);
    const box = (await launcher.boundingBox())!;
    expect(box.x).toBeLessThan(60);
    expect(box.y).toBeLessThan(60);
    await launcher.click();
    await panel.waitFor({ state: "visible" });
    expect(await panel.boundingBox()).toEqual({ x: 0, y: 0, width: 375, height: 720 });
    await phone.screenshot({ path: path.join(artifacts, "widget-phone.png") });
    await phone.close();
  });

  it("tells the visitor when its token was tampered with", async () => {
    const tampered = `${token.slice(0, -6)}${token.slice(-6).split("").reverse().join("")}`;
    const other = await browser.newPage();
    await other.goto(bankPage("localhost", { token: tampered }));
    const { launcher, notice } = widget(other);
    await launcher.click();
    await expect.poll(() => notice.textContent()).toBe("This chat is not available: its key is not valid.");
    expect(await other.locator("parley-chat .send").isDisabled()).toBe(true);
    await other.close();
  });

  it("is refused on a page whose origin is not on the allow-list", async () => {
    const other = await browser.newPage();
    const refused: string[] = [];
    other.on("console", (message) => {
      if (message.text().includes("CORS")) refused.push(message.text());
    });
    await other.goto(bankPage("127.0.0.1"));
    const { launcher, notice, messages } = widget(other);
    await launcher.click();
    await expect.poll(() => notice.textContent()).toBe("This chat is not enabled for this website.");
    expect(refused.length).toBeGreaterThan(0);
    expect(await messages.count()).toBe(0);
    await other.close();
  });
});
