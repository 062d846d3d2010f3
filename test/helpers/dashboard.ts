import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { expect, vi } from "vitest";
import type { Role } from "../generated.js";
import { addAgent, agentPassword } from "./agents.js";
import { startTestApp, type TestApp } from "./app.js";
import { hasChromium, launchChromium, skipReason } from "./chromium.js";

export { hasChromium, skipReason };

// The dashboard in Debian's Chromium (playwright-core), as the widget's browser test runs it: one service and one
// browser per file, the pages visited in sequence.

// A page's test signs in, waits for live updates and checks accessibility: more than the 30 s of an API test on a
// loaded machine.
vi.setConfig({ testTimeout: 90_000 });

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
// Screenshots land in test-results/; with UPDATE_SCREENSHOTS=1 in docs/, where the README shows them.
const screenshotDir = path.resolve(process.env.UPDATE_SCREENSHOTS ? "docs" : "test-results");

export interface DashboardUser {
  id: string;
  email: string;
  role: Role;
  name: string;
}

export interface DashboardTest {
  app: TestApp;
  /** Where the browser reaches the service: the app's own URL, or the public host mapped to it. */
  origin: string;
  tenant: { tenantId: string; apiKey: string };
  /** A user of the tenant with this role, made through the API. */
  user(role: Role, name?: string): Promise<DashboardUser>;
  /** A fresh browser tab signed in as `user`, on /dashboard/<path>. */
  signIn(user: DashboardUser, pathname?: string, viewport?: { width: number; height: number }): Promise<Page>;
  /** A fresh browser tab on /dashboard/<path>, not signed in: the sign-in page. */
  open(pathname?: string): Promise<Page>;
  /** Fills the sign-in form with the user's e-mail and password and sends it. */
  submitPassword(page: Page, user: DashboardUser): Promise<void>;
  close(): Promise<void>;
}

export async function startDashboardTest(
  env: Record<string, string> = {},
  tenantName = "Example Bank",
  options: { publicHost?: string } = {},
): Promise<DashboardTest> {
  const app = await startTestApp(env);
  // A service whose public address (PUBLIC_BASE_URL) is a name of its own, as a bank's provider knows it: Chromium
  // resolves that name to the test's port.
  const origin = options.publicHost ? `http://${options.publicHost}` : app.url;
  const hostRules = options.publicHost ? [`--host-resolver-rules=MAP ${options.publicHost} ${new URL(app.url).host}`] : [];
  const tenant = await app.tenant(tenantName);
  const profile = mkdtempSync(path.join(tmpdir(), "parley-dashboard-"));
  let browser: BrowserContext | null = null;
  const launch = async () => {
    browser ??= await launchChromium(profile, hostRules);
    return browser;
  };
  const open = async (pathname = "inbox", viewport?: { width: number; height: number }) => {
    const page = await (await launch()).newPage();
    // An action on something that never shows fails with its own message, well within the test's time.
    page.setDefaultTimeout(15_000);
    if (viewport) await page.setViewportSize(viewport);
    watchForPageErrors(page);
    await page.goto(`${origin}/dashboard/${pathname}`);
    return page;
  };
  const submitPassword = async (page: Page, user: DashboardUser) => {
    await page.getByLabel("E-mail").fill(user.email);
    await page.getByLabel("Password").fill(agentPassword);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
  };
  return {
    app,
    origin,
    tenant,
    open,
    submitPassword,
    async user(role, name = `${role[0]!.toUpperCase()}${role.slice(1)} Person`) {
      const made = await addAgent(app, tenant.apiKey, { role, name, availability: "offline" });
      return { id: made.id, email: made.email, role, name };
    },
    async signIn(user, pathname = "inbox", viewport) {
      const page = await open(pathname, viewport);
      await submitPassword(page, user);
      await expect
        .poll(() => page.getByRole("button", { name: "Sign out" }).isVisible(), { timeout: 20_000 })
        .toBe(true)
        .catch(async (err) => {
          await screenshot(page, "sign-in-failed");
          throw new Error(`${err}\n${(pageErrors.get(page) ?? []).join("\n")}`);
        });
      return page;
    },
    async close() {
      await browser?.close();
      rmSync(profile, { recursive: true, force: true });
      await app.close();
    },
  };
}

/** Script errors and refused resources (a Content-Security-Policy violation is one) fail the page's next check. */
const pageErrors = new WeakMap<Page, string[]>();
function watchForPageErrors(page: Page): void {
  const errors: string[] = [];
  pageErrors.set(page, errors);
  page.on("pageerror", (err) => errors.push(err.message));
  page.on("console", (message) => {
    // A test's public name on plain http (see startDashboardTest) is no secure origin: Chromium says it ignores COOP.
    const expected = /status of (401|403|404|422|429)|Cross-Origin-Opener-Policy header has been ignored/;
    if (message.type() === "error" && !expected.test(message.text())) errors.push(message.text());
  });
}

/**
 * axe-core over the page as it is now: no serious or critical violation, and no script error or refused resource
 * so far. Injected through the DevTools protocol, which the page's policy does not govern.
 */
export async function expectAccessible(page: Page, what: string): Promise<void> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const result = await (window as unknown as { axe: { run(): Promise<{ violations: any[] }> } }).axe.run();
    return result.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map(
        (v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n: { target: string[] }) => n.target.join(" ")).join(", ")}`,
      );
  });
  expect(violations, `${what}: accessibility`).toEqual([]);
  expect(pageErrors.get(page) ?? [], `${what}: page errors`).toEqual([]);
}

/** The page as a newcomer first sees it: from its top, unless `where` is "here" (a part lower down is the point). */
export async function screenshot(page: Page, name: string, where: "top" | "here" = "top"): Promise<void> {
  mkdirSync(screenshotDir, { recursive: true });
  if (where === "top") await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: path.join(screenshotDir, `dashboard-${name}.png`) });
}
