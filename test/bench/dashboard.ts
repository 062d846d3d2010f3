import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Page } from "playwright-core";
import { CreateAgentForTestDocument, CreateEscalationForTestDocument } from "../generated.js";
import { agentPassword } from "../helpers/agents.js";
import type { TestApp } from "../helpers/app.js";
import { hasChromium, launchChromium } from "../helpers/chromium.js";
import { seedConversation, seedFeedback, seedHistory, seedSourceList } from "../helpers/seed.js";
import { type BenchDatabase, benchDatabases, noteRow, numberFrom, percentile, startBenchApp, thousands } from "./harness.js";

const conversations = numberFrom("BENCH_DASHBOARD_CONVERSATIONS", 5_000);
const sources = numberFrom("BENCH_DASHBOARD_SOURCES", 40);
const escalations = numberFrom("BENCH_DASHBOARD_ESCALATIONS", 50);
const visits = numberFrom("BENCH_DASHBOARD_VISITS", 5);
const targetMs = 1_000;
const budgetKb = 200;

// Each page, and what on it says its data is shown: the moment a person can use it.
const pages: Array<{ path: string; shown: string }> = [
  { path: "inbox", shown: ".conversation-row" },
  { path: "escalations", shown: "main table tbody tr td button" },
  { path: "knowledge", shown: "main table tbody tr" },
  { path: "analytics", shown: "main .card" },
  { path: "channels", shown: "main form" },
  { path: "intents", shown: "main form" },
  { path: "agents", shown: "main table tbody tr" },
  { path: "settings", shown: "#keys-heading" },
  { path: "account", shown: "#sessions-heading" },
];

/** A bank's tenant as the dashboard meets it: months of conversations, dozens of sources, a queue, a team. */
async function seedTenant(app: TestApp): Promise<string> {
  const { tenantId, apiKey } = await app.tenant("Realistic Bank");
  await seedHistory(app.services, tenantId, { conversations });
  await seedFeedback(app.services, tenantId);
  await seedSourceList(app.services, tenantId, sources);
  for (let i = 0; i < escalations; i++) {
    const conversationId = await seedConversation(app.services, tenantId, { channel: "chatapp" });
    await app.graphql(CreateEscalationForTestDocument, { conversationId }, apiKey);
  }
  const email = `owner.${Date.now()}@bank.example`;
  for (let i = 0; i < 12; i++) {
    const person = { name: `Agent ${i}`, email: `agent${i}.${Date.now()}@bank.example`, role: "agent" as const };
    await app.graphql(CreateAgentForTestDocument, { ...person, password: agentPassword }, apiKey);
  }
  const owner = await app.graphql(
    CreateAgentForTestDocument,
    { name: "Olga Owner", email, role: "owner", password: agentPassword },
    apiKey,
  );
  if (owner.errors) throw new Error(JSON.stringify(owner.errors));
  return email;
}

/** Milliseconds from the navigation's start until the page shows its data and nothing is loading any more. */
async function timeToInteractive(page: Page, url: string, shown: string): Promise<number> {
  await page.goto(url);
  await page.waitForFunction(
    (selector) => {
      const main = document.querySelector("main");
      return !!main?.querySelector("h1") && !!main.querySelector(selector) && !/Loading/.test(main.textContent ?? "");
    },
    shown,
    { timeout: 60_000, polling: "raf" },
  );
  return page.evaluate(() => performance.now());
}

/** Gzipped JavaScript the first visit downloads (the shell, React, the sign-in and the inbox). */
const firstLoadBytes = (page: Page) =>
  page.evaluate(() =>
    performance
      .getEntriesByType("resource")
      .filter((e) => e.name.endsWith(".js"))
      .reduce((sum, e) => sum + (e as PerformanceResourceTiming).encodedBodySize, 0),
  );

async function measure(database: BenchDatabase): Promise<string[]> {
  const app = await startBenchApp(database);
  const profile = mkdtempSync(path.join(tmpdir(), "parley-bench-dashboard-"));
  const browser = await launchChromium(profile);
  try {
    const email = await seedTenant(app);
    const page = await browser.newPage();
    await page.goto(`${app.url}/dashboard/inbox`);
    await page.getByLabel("E-mail").fill(email);
    await page.getByLabel("Password").fill(agentPassword);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForSelector(".conversation-row", { timeout: 60_000 });
    const firstLoadKb = (await firstLoadBytes(page)) / 1024;
    const rows: string[] = [];
    for (const { path: pagePath, shown } of pages) {
      const times: number[] = [];
      // The first visit builds nothing (the app is built at the sign-in) but meets cold caches; it is counted.
      for (let visit = 0; visit < visits; visit++) {
        times.push(await timeToInteractive(page, `${app.url}/dashboard/${pagePath}`, shown));
      }
      times.sort((a, b) => a - b);
      const median = percentile(times, 0.5);
      const worst = times.at(-1)!;
      rows.push(
        `| ${pagePath} | ${database.name} | ${Math.round(median)} | ${Math.round(worst)} | ${targetMs} | ${worst <= targetMs ? "yes" : "no"} |`,
      );
    }
    rows.push(
      `| first load (inbox) | ${database.name} | ${firstLoadKb.toFixed(1)} KB gz JS | | ${budgetKb} KB | ${firstLoadKb <= budgetKb ? "yes" : "no"} |`,
    );
    return rows;
  } finally {
    await browser.close();
    rmSync(profile, { recursive: true, force: true });
    await app.close();
  }
}

/**
 * Every page of the dashboard in Chromium on a realistic tenant: time to interactive per page (median and worst of
 * `visits` full page loads, signed in) beside the 1 s target, and the first load's gzipped JavaScript beside 200 KB.
 */
export async function benchDashboard(): Promise<void> {
  if (!hasChromium) {
    console.log("Not measured: /usr/bin/chromium is missing (apt-get install -y chromium).");
    return;
  }
  console.log(
    `Tenant: ${thousands(conversations)} conversations (two messages each, feedback on a third of the answers), ` +
      `${sources} sources, ${escalations} open escalations, 13 people; ${visits} full page loads per page.\n`,
  );
  console.log("| page | database | median (ms) | worst (ms) | target | met |");
  console.log("|---|---|---:|---:|---:|---|");
  const { databases, unreachable } = await benchDatabases();
  for (const database of databases) for (const row of await measure(database)) console.log(row);
  if (unreachable) console.log(noteRow(6, 1, unreachable));
}
