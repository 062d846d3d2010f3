import { existsSync } from "node:fs";
import { type BrowserContext, chromium } from "playwright-core";

// Debian's Chromium driven by playwright-core, for the dashboard's browser tests and its benchmark.
export const chromiumPath = "/usr/bin/chromium";
export const hasChromium = existsSync(chromiumPath);
if (!hasChromium && process.env.CI)
  throw new Error(`${chromiumPath} is missing: .ci/run installs it (apt-get install -y chromium)`);
/** Said in a browser test's name when it is skipped for want of Chromium (never in CI). */
export const skipReason = hasChromium ? "" : ` (skipped: ${chromiumPath} is missing; apt-get install -y chromium)`;

/** A headless browser with its own profile directory, quiet (no background traffic), with `extraArgs` added. */
export function launchChromium(
  profile: string,
  extraArgs: string[] = [],
  viewport = { width: 1280, height: 860 },
): Promise<BrowserContext> {
  return chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    viewport,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-quic",
      "--no-first-run",
      "--disable-component-update",
      "--disable-sync",
      ...extraArgs,
    ],
  });
}
