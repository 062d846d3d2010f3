import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/app.js";

// GraphiQL in a real browser (Debian's Chromium): it must work with no internet, under its content security policy.

const chromiumPath = "/usr/bin/chromium";
const hasChromium = existsSync(chromiumPath);
if (!hasChromium && process.env.CI)
  throw new Error(`${chromiumPath} is missing: .ci/run installs it (apt-get install -y chromium)`);
const skipReason = hasChromium ? "" : ` (skipped: ${chromiumPath} is missing; apt-get install -y chromium)`;

let app: TestApp;
let browser: Browser;

beforeAll(async () => {
  if (!hasChromium) return;
  app = await startTestApp();
  browser = await chromium.launch({ executablePath: chromiumPath, args: ["--no-sandbox"] });
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
});

describe.skipIf(!hasChromium)(`GraphiQL in Chromium${skipReason}`, () => {
  it("renders and runs a query, asking nothing of any other host and breaking no rule of its policy", async () => {
    const page = await browser.newPage();
    const elsewhere: string[] = [];
    const problems: string[] = [];
    page.on("request", (request) => {
      const url = new URL(request.url());
      if (!["blob:", "data:"].includes(url.protocol) && url.origin !== app.url) elsewhere.push(request.url());
    });
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(message.text());
    });
    page.on("pageerror", (error) => problems.push(error.message));

    await page.goto(`${app.url}/graphql`);
    await page.locator(".graphiql-execute-button").waitFor({ timeout: 60_000 });
    const result = page.locator(".graphiql-response").first();
    await page.locator(".graphiql-execute-button").click();
    await expect.poll(() => result.textContent(), { timeout: 30_000 }).toMatch(/"data"|"errors"/);

    expect(elsewhere).toEqual([]);
    expect(problems.filter((p) => /Content Security Policy|Refused to/i.test(p))).toEqual([]);
    await page.close();
  }, 120_000);
});
