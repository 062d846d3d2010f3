import { readFileSync } from "node:fs";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/app.js";

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.close());

const maxImport = 50_000;

/**
 * The import maximum as a `text,intent` CSV: BANKING77's training split five times over, each time phrased a
 * little differently, and how many distinct examples it holds (the split repeats a few).
 */
function largestImport(): { csv: string; distinct: number } {
  const rows: string[][] = parse(readFileSync(new URL("../../src/ai/data/banking77-train.csv", import.meta.url)), {
    from_line: 2,
  });
  const openers = ["", "Hi, ", "Hello, ", "Please help: ", "Quick question: "];
  const examples = Array.from({ length: maxImport }, (_, i) => {
    const [text, intent] = rows[i % rows.length]!;
    // One label of the published file ends in "?", which intent names may not.
    return { text: `${openers[Math.floor(i / rows.length)]}${text}`, intent: intent!.replace("?", "") };
  });
  const lines = examples.map(({ text, intent }) => `"${text.replaceAll('"', '""')}",${intent}`);
  // Examples are stored trimmed, once per intent.
  const distinct = new Set(examples.map(({ text, intent }) => `${intent}\n${text.trim()}`)).size;
  return { csv: `text,intent\n${lines.join("\n")}\n`, distinct };
}

describe("training a tenant's intent classifier", () => {
  it("imports the maximum of 50,000 examples and answers other requests while it trains them in a worker thread", async () => {
    const bank = await app.tenant("Big Import Bank");
    const { trainer } = app.services;
    const { csv, distinct } = largestImport();
    const importing = app.request("/api/intents/import", {
      key: bank.apiKey,
      body: csv,
      headers: { "content-type": "text/csv" },
    });
    await expect.poll(() => trainer.busy, { timeout: 480_000, interval: 20 }).toBe(1);

    // Answered while the training is still running: it does not hold the event loop.
    let answeredWhileTraining = 0;
    while (answeredWhileTraining < 5 && trainer.busy) {
      const health = await app.request("/healthz");
      expect(health.status).toBe(200);
      if (trainer.busy) answeredWhileTraining++;
    }
    // A customer meanwhile is answered with the built-in model.
    const chat = await app.request("/api/chat", { key: bank.apiKey, body: { message: "thank you so much, that helped" } });
    const chatAnsweredWhileTraining = trainer.busy > 0;
    expect(answeredWhileTraining).toBe(5);
    expect(chatAnsweredWhileTraining).toBe(true);
    expect(chat.status).toBe(200);
    expect(chat.body.metadata.intent).toBe("thanks");

    const imported = await importing;
    expect(imported.status).toBe(200);
    expect(imported.body).toEqual({ intents: 77, created: 77, examples: distinct });
    const classified = await app.request("/api/intents/classify", {
      key: bank.apiKey,
      body: { texts: ["Hi, my new card still has not arrived"] },
    });
    expect(classified.body.results[0].intent).toBe("card_arrival");
    const again = await app.request("/api/chat", {
      key: bank.apiKey,
      body: { message: "how long does a transfer from Europe take?" },
    });
    expect(again.body.metadata.intent).toBe("transfer_timing");
  }, 600_000);
});
