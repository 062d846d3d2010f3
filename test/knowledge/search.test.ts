import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { testDatabaseHasPgvector } from "../helpers/database.js";

// Hybrid search (vector + full-text, fused by reciprocal rank) end to end through POST /api/knowledge,
// once per vector index implementation: both must give the same answers.

const cards = `Card services

To reset your card PIN, open the mobile app, choose Cards, then Reset PIN. Your new PIN works at once.

Online banking

Forgot your password? Choose "Forgot password" on the log-in page and we text you a one-time code.`;

const transfers = `International transfers

You can send up to 25,000 euros a day abroad. Transfers in euros inside the SEPA area arrive the next working day.

Our SWIFT code is EXBKGB2L for payments into your account from abroad.`;

interface Hit {
  source_id: string;
  text: string;
  score: number;
  similarity: number;
}

const indexes = [
  { kind: "memory", skip: false },
  // Debian's PostgreSQL has no pgvector; PGlite ships it, and CI runs these tests on a server with it too (DESIGN §5).
  { kind: "pgvector", skip: !(await testDatabaseHasPgvector()) },
] as const;

for (const { kind, skip } of indexes) {
  describe.skipIf(skip)(`hybrid search with the ${kind} vector index`, () => {
    let app: TestApp;
    let bank: { tenantId: string; apiKey: string };
    const sources: Record<string, string> = {};

    const search = async (query: string, key = bank.apiKey, topK = 3) => {
      const res = await app.request("/api/knowledge", { key, body: { query, topK } });
      expect(res.status).toBe(200);
      return res.body.results as Hit[];
    };

    const add = async (key: string, title: string, content: string) => {
      const res = await app.request("/api/knowledge/sources", { key, body: { type: "manual", title, content } });
      expect(res.status).toBe(201);
      return res.body.id as string;
    };

    beforeAll(async () => {
      app = await startTestApp({ VECTOR_INDEX: kind });
      bank = await app.tenant("Search Bank");
      sources.cards = await add(bank.apiKey, "Cards and online banking", cards);
      sources.transfers = await add(bank.apiKey, "Transfers", transfers);
    });
    afterAll(() => app?.close());

    it(`runs on the ${kind} index`, async () => {
      expect(app.services.vectors.kind).toBe(kind);
    });

    it("ranks the chunk that answers the question first, best first, with scores", async () => {
      const results = await search("How can I reset my PIN?");
      expect(results[0]).toMatchObject({ source_id: sources.cards });
      expect(results[0]!.text).toContain("Reset PIN");
      expect(results[0]!.similarity).toBeGreaterThan(0);
      const scores = results.map((r) => r.score);
      expect(scores).toEqual([...scores].sort((a, b) => b - a));
      // Asked again, the chunks' rows come from those the first search read: the same results.
      expect(await search("How can I reset my PIN?")).toEqual(results);
    });

    it("finds a chunk by an exact code, and by misspelt words no full-text match finds", async () => {
      expect((await search("EXBKGB2L"))[0]).toMatchObject({ source_id: sources.transfers });
      // Neither word is in any chunk: only the vector half, through character n-grams, can find it.
      const typo = await search("pasword forgoten");
      expect(typo[0]).toMatchObject({ source_id: sources.cards });
      expect(typo[0]!.text).toContain("Forgot your password");
    });

    it("has the sentence encoder read a question only where an FAQ entry is among its passages", async () => {
      const encodings = async () => {
        const metrics = (await app.request("/metrics")).body as string;
        return Number(/^parley_sentence_encodings_total (\d+)$/m.exec(metrics)?.[1]);
      };
      const before = await encodings();
      expect(before).toBeGreaterThanOrEqual(0);
      expect((await search(`What do I do to reset my card PIN, ${kind} index?`))[0]!.source_id).toBe(sources.cards);
      expect(await encodings()).toBe(before);

      const faq = await app.tenant(`FAQ Bank (${kind})`);
      await add(
        faq.apiKey,
        "FAQ",
        "How do I reset my PIN?\nOpen the app, choose Cards, then Reset PIN.\n\nWhen are you open?\nMonday to Friday, 9:00 to 17:00.",
      );
      expect((await search(`Forgot the PIN of my card, ${kind} index`, faq.apiKey))[0]!.text).toContain("Reset PIN");
      expect(await encodings()).toBeGreaterThan(before);
    });

    it("never returns another tenant's chunks", async () => {
      const other = await app.tenant("Other Search Bank");
      expect(await search("reset my card PIN", other.apiKey)).toEqual([]);
      const own = await add(other.apiKey, "Other cards", "To reset a PIN, visit a branch with photo identification.");
      const results = await search("reset my card PIN", other.apiKey, 10);
      expect(results.map((r) => r.source_id)).toEqual([own]);
    });

    it("stops returning a source's chunks once it is deleted", async () => {
      const deleted = await app.request(`/api/knowledge/sources?id=${sources.transfers}`, { method: "DELETE", key: bank.apiKey });
      expect(deleted.status).toBe(200);
      const results = await search("international transfers abroad SWIFT", bank.apiKey, 10);
      expect(results.map((r) => r.source_id)).not.toContain(sources.transfers);
    });
  });
}
