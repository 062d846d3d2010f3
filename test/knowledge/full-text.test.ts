import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fullTextCandidates } from "../../src/knowledge/full-text.js";
import { startTestApp, type TestApp } from "../helpers/app.js";

// The full-text half of hybrid search: chunks sharing more of the question's words come first.

let app: TestApp;
let bank: { tenantId: string; apiKey: string };
let other: { tenantId: string; apiKey: string };
const ids: Record<string, string> = {};

async function add(key: string, title: string, content: string) {
  const res = await app.request("/api/knowledge/sources", { key, body: { type: "manual", title, content } });
  expect(res.status).toBe(201);
  const chunks = await app.services.db.prisma.chunk.findMany({ where: { sourceId: res.body.id }, select: { id: true } });
  expect(chunks).toHaveLength(1);
  return chunks[0]!.id;
}

const search = (query: string, tenantId = bank.tenantId, limit = 10) => fullTextCandidates(app.services, tenantId, query, limit);

beforeAll(async () => {
  app = await startTestApp();
  bank = await app.tenant("Full Text Bank");
  other = await app.tenant("Other Full Text Bank");
  ids.cards = await add(
    bank.apiKey,
    "Cards",
    "Card card card. Your card, your debit card and your credit card: every card we issue has a card number and a card PIN.",
  );
  ids.lostAbroad = await add(
    bank.apiKey,
    "Travel",
    "If you lose your card abroad, call the number on our travel page: we block it at once.",
  );
  ids.mortgage = await add(bank.apiKey, "Mortgages", "A mortgage offer is valid for six months after we send it.");
  ids.otherCards = await add(other.apiKey, "Other cards", "Lost card abroad? Other bank's answer.");
});

afterAll(() => app?.close());

describe("full-text candidates", () => {
  it("puts the chunk with all of the question's words before one that repeats a single word", async () => {
    const found = await search("lost card abroad");
    expect(found[0]).toBe(ids.lostAbroad);
    expect(found).toContain(ids.cards);
    expect(found).not.toContain(ids.mortgage);
  });

  it("stays within the tenant", async () => {
    expect(await search("lost card abroad")).not.toContain(ids.otherCards);
    expect(await search("lost card abroad", other.tenantId)).toEqual([ids.otherCards]);
  });

  it("returns at most the limit", async () => {
    expect(await search("card abroad mortgage", bank.tenantId, 2)).toHaveLength(2);
  });

  it("reads operator characters and quotes in a question as text", async () => {
    expect(await search("what's O'Brien's mortgage & offer | !(rate) <-> 'valid'")).toEqual([ids.mortgage]);
  });

  it("finds nothing for a question without a word in the knowledge base, or only stop words", async () => {
    expect(await search("zebra xylophone")).toEqual([]);
    expect(await search("the and of")).toEqual([]);
  });
});
