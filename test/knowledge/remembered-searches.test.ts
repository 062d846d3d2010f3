import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { RememberedSearches } from "../../src/knowledge/remembered-searches.js";
import { startTestApp, type TestApp } from "../helpers/app.js";

// A question asked again of knowledge that has not changed gets the result found the first time; any change of the
// tenant's knowledge, on this instance or another, makes the next search look again.

interface Hit {
  source_id: string;
  text: string;
}

const cards = `Card services

Lost your card? Block it in the mobile app under Cards, then call us on 0800 123 456 to order a replacement.`;

const renewal = `Card renewal

Your new debit card is posted to you a month before the old one expires. It works once you have made a payment with your PIN.`;

let app: TestApp;

async function add(target: TestApp, key: string, title: string, content: string): Promise<string> {
  const res = await target.request("/api/knowledge/sources", { key, body: { type: "manual", title, content } });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

async function search(target: TestApp, key: string, query: string, topK = 3): Promise<Hit[]> {
  const res = await target.request("/api/knowledge", { key, body: { query, topK } });
  expect(res.status).toBe(200);
  return res.body.results as Hit[];
}

/** The instance's searches so far, as `/metrics` counts them. */
async function searchCounts(target: TestApp) {
  const metrics = (await target.request("/metrics")).body as string;
  const count = (result: string) =>
    Number(new RegExp(`^parley_knowledge_searches_total\\{result="${result}"\\} (\\d+)$`, "m").exec(metrics)?.[1]);
  return { searched: count("searched"), remembered: count("remembered") };
}

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.close());

describe("remembered knowledge searches", () => {
  it("answers a question asked again from memory, with the same results", async () => {
    const bank = await app.tenant("Remembering Bank");
    await add(app, bank.apiKey, "Cards", cards);
    const first = await search(app, bank.apiKey, "I lost my card, what now?");
    expect(first[0]!.text).toContain("Block it in the mobile app");
    const before = await searchCounts(app);

    expect(await search(app, bank.apiKey, "I lost my card, what now?")).toEqual(first);
    expect(await searchCounts(app)).toEqual({ searched: before.searched, remembered: before.remembered + 1 });
    // Another count asked for, or another wording, is another search.
    expect(await search(app, bank.apiKey, "I lost my card, what now?", 1)).toEqual(first.slice(0, 1));
    expect(await search(app, bank.apiKey, "I lost my card. What now?")).toHaveLength(first.length);
    expect(await searchCounts(app)).toEqual({ searched: before.searched + 2, remembered: before.remembered + 1 });
  });

  it("looks again once the tenant's knowledge changes: a source added, then deleted", async () => {
    const bank = await app.tenant("Changing Bank");
    await add(app, bank.apiKey, "Cards", cards);
    const question = "When does my new debit card arrive before the old one expires?";
    const before = await search(app, bank.apiKey, question);
    expect(before.map((h) => h.text).join(" ")).not.toContain("a month before");

    const added = await add(app, bank.apiKey, "Renewal", renewal);
    const after = await search(app, bank.apiKey, question);
    expect(after[0]).toMatchObject({ source_id: added });
    expect(after[0]!.text).toContain("a month before the old one expires");

    const deleted = await app.request(`/api/knowledge/sources?id=${added}`, { method: "DELETE", key: bank.apiKey });
    expect(deleted.status).toBe(200);
    expect((await search(app, bank.apiKey, question)).map((h) => h.source_id)).not.toContain(added);
  });

  it("never gives one tenant's remembered results to another asking the same", async () => {
    const first = await app.tenant("First Asking Bank");
    const firstSource = await add(app, first.apiKey, "Cards", cards);
    const question = "My card was stolen, how do I block it?";
    expect((await search(app, first.apiKey, question))[0]).toMatchObject({ source_id: firstSource });

    const second = await app.tenant("Second Asking Bank");
    expect(await search(app, second.apiKey, question)).toEqual([]);
    const secondSource = await add(
      app,
      second.apiKey,
      "Stolen cards",
      "A stolen card is blocked at any branch, or by phone at once.",
    );
    expect((await search(app, second.apiKey, question)).map((h) => h.source_id)).toEqual([secondSource]);
  });
});

describe.runIf(process.env.DATABASE_URL && process.env.REDIS_URL)("remembered searches on several instances", () => {
  it("look again when the knowledge changes on another instance", async () => {
    const second = await startTestApp({}, { database: app.database });
    try {
      const bank = await app.tenant("Two Instance Bank");
      await add(app, bank.apiKey, "Cards", cards);
      const question = "How early is a renewed debit card posted?";
      // Asked of the second instance once its vector index holds the first source, and asked again: remembered there.
      await expect.poll(async () => (await search(second, bank.apiKey, question)).length, { timeout: 30_000 }).toBeGreaterThan(0);
      const held = await search(second, bank.apiKey, question);
      expect(held.map((h) => h.text).join(" ")).not.toContain("a month before");

      const added = await add(app, bank.apiKey, "Renewal", renewal);
      await expect.poll(async () => (await search(second, bank.apiKey, question))[0]?.source_id, { timeout: 30_000 }).toBe(added);
    } finally {
      await second.close();
    }
  });
});

describe("RememberedSearches", () => {
  it("shares one search between callers asking at once, and forgets a failed one", async () => {
    const searches = new RememberedSearches<string[]>();
    let calls = 0;
    let release: (value: string[]) => void = () => undefined;
    const slow = () => {
      calls++;
      return new Promise<string[]>((resolve) => {
        release = resolve;
      });
    };
    const asked = [searches.recall("t1", "q", slow), searches.recall("t1", "q", slow)];
    release(["a"]);
    expect(await Promise.all(asked)).toEqual([["a"], ["a"]]);
    expect(calls).toBe(1);

    await expect(searches.recall("t1", "broken", () => Promise.reject(new Error("down")))).rejects.toThrow("down");
    expect(await searches.recall("t1", "broken", async () => ["b"])).toEqual(["b"]);
    expect(searches.counts).toEqual({ searched: 3, remembered: 1 });
  });

  it("searches again once a result is older than its limit, as after an announcement lost", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      const searches = new RememberedSearches<string>({ maxAgeMs: 60_000 });
      expect(await searches.recall("t1", "q", async () => "first")).toBe("first");
      vi.advanceTimersByTime(60_000);
      expect(await searches.recall("t1", "q", async () => "second")).toBe("first");
      vi.advanceTimersByTime(1);
      expect(await searches.recall("t1", "q", async () => "third")).toBe("third");
    } finally {
      vi.useRealTimers();
    }
  });

  it("does not use a result found before the tenant changed, even one that finished after", async () => {
    const searches = new RememberedSearches<string>();
    let release: (value: string) => void = () => undefined;
    const during = searches.recall("t1", "q", () => new Promise<string>((resolve) => (release = resolve)));
    searches.changed("t1");
    release("old");
    expect(await during).toBe("old");
    expect(await searches.recall("t1", "q", async () => "new")).toBe("new");
    // Another tenant's change leaves this one's results.
    searches.changed("t2");
    expect(await searches.recall("t1", "q", async () => "newer")).toBe("new");
  });
});
