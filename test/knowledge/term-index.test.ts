import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { fullTextCandidates, questionStems } from "../../src/knowledge/full-text.js";
import { TermIndex, type TermIndexOptions } from "../../src/knowledge/term-index.js";
import { addContribution, byteOrder, finalRank, parseTsvector, rankContribution } from "../../src/knowledge/term-ranking.js";
import { ingestAnswerSet, readAnswerSet } from "../bench/answer-set.js";
import { startTestApp, type TestApp } from "../helpers/app.js";

// The full-text half of knowledge search from an in-memory index: it must select and order what the database's
// statement selects and orders, follow a tenant's chunks as they change, and leave to the database what it does not hold.

let app: TestApp;
let bank: { tenantId: string; apiKey: string };
const set = readAnswerSet("answers");
const indexes: TermIndex[] = [];

/** An index of its own, which hears the service's announcements unless `deaf` (as after a lost one). */
function termIndex(options: TermIndexOptions, deaf = false): TermIndex {
  const index = new TermIndex(
    { db: app.services.db, realtime: app.services.realtime, logger: app.services.logger, searches: app.services.searches },
    options,
  );
  if (!deaf) index.start();
  indexes.push(index);
  return index;
}

/** The index's terms of the tenant once a build has run: a first call starts it. */
async function built(index: TermIndex, tenantId: string) {
  index.terms(tenantId);
  await index.settled();
  return index.terms(tenantId);
}

/** Candidates as the database gives them: an index that never holds a tenant leaves every search to it. */
const fromDatabase = (tenantId: string, question: string, limit: number) =>
  fullTextCandidates({ db: app.services.db, termIndex: databaseOnly }, tenantId, question, limit);
let databaseOnly: TermIndex;

beforeAll(async () => {
  app = await startTestApp();
  bank = await app.tenant("Term Index Bank");
  databaseOnly = new TermIndex(
    { db: app.services.db, realtime: app.services.realtime, logger: app.services.logger, searches: app.services.searches },
    { maxChunks: -1 },
  );
  await ingestAnswerSet(app, bank, set);
});

afterEach(async () => {
  for (const index of indexes.splice(0)) await index.stop();
});

afterAll(async () => {
  await app?.close();
});

describe("the term index", () => {
  it("ranks as ts_rank ranks, position weights and repeated words included", async () => {
    const vectors = ["'card':1,4,9 'lost':2", "'card':3A 'lost':1B,7C,8", "'it''s':1 'card':2", "'card' 'lost'", "'fee':5"];
    const queries = [["card"], ["card", "lost"], ["it's", "card"]];
    for (const vector of vectors) {
      const lexemes = parseTsvector(vector);
      for (const terms of queries) {
        const [row] = await app.services.db.sql.query<{ rank: number }>(
          `SELECT ts_rank($1::tsvector, array_to_string(ARRAY(SELECT quote_literal(t) FROM unnest($2::text[]) AS t), ' | ')::tsquery) AS rank`,
          [vector, terms],
        );
        const sum = [...terms]
          .sort(byteOrder)
          .map((term) => lexemes.find((l) => l.lexeme === term))
          .reduce((total, l) => (l ? addContribution(total, rankContribution(l.labels)) : total), 0);
        // float4 comes out as its shortest decimal, which reads back as the same single-precision number.
        expect(finalRank(sum, terms.length), `${vector} for ${terms.join(" | ")}`).toBe(Math.fround(row!.rank));
      }
    }
  });

  it("gives the candidates the database gives, in its order, for each question of a bank's answer set", async () => {
    const index = await built(termIndex({ quietMs: 0 }), bank.tenantId);
    expect(index?.size).toBeGreaterThan(50);
    let compared = 0;
    for (const { question } of set.cases) {
      for (const limit of [20, 5]) {
        const expected = await fromDatabase(bank.tenantId, question, limit);
        expect(index!.candidates(await questionStems(app.services, question), limit, 300), question).toEqual(expected);
        compared += expected.length ? 1 : 0;
      }
    }
    expect(compared).toBeGreaterThan(set.cases.length);
  }, 120_000);

  it("is what the service's searches read once built, and the database answers meanwhile", async () => {
    const tenant = await app.tenant("Term Index Service Bank");
    const add = await app.request("/api/knowledge/sources", {
      key: tenant.apiKey,
      body: { type: "manual", title: "Cards", content: "If your card is lost or stolen, freeze it in the app at once." },
    });
    expect(add.status).toBe(201);
    // Just changed: the database answers, and the service's index builds once the change has been quiet a moment.
    expect(app.services.termIndex.terms(tenant.tenantId)).toBeNull();
    const [expected] = await fromDatabase(tenant.tenantId, "stolen card", 5);
    expect(expected).toBeDefined();
    expect(await fullTextCandidates(app.services, tenant.tenantId, "stolen card", 5)).toEqual([expected]);
    await expect.poll(() => app.services.termIndex.terms(tenant.tenantId)?.size, { interval: 100 }).toBe(1);
    expect(await fullTextCandidates(app.services, tenant.tenantId, "stolen card", 5)).toEqual([expected]);
  });

  it("follows the tenant's chunks: a change is announced, the database answers until the index is rebuilt", async () => {
    const tenant = await app.tenant("Changing Term Bank");
    const index = termIndex({ quietMs: 0 });
    expect((await built(index, tenant.tenantId))?.size).toBe(0);

    const added = await app.request("/api/knowledge/sources", {
      key: tenant.apiKey,
      body: { type: "manual", title: "Mortgages", content: "A mortgage offer is valid for six months." },
    });
    expect(added.status).toBe(201);
    // The announcement reaches this index as it reaches another instance's.
    await expect.poll(() => index.terms(tenant.tenantId)?.candidates(["mortgag"], 5, 300) ?? null).toHaveLength(1);

    const removed = await app.request(`/api/knowledge/sources?id=${added.body.id}`, { method: "DELETE", key: tenant.apiKey });
    expect(removed.status).toBeLessThan(300);
    await expect.poll(() => index.terms(tenant.tenantId)?.candidates(["mortgag"], 5, 300) ?? null).toEqual([]);
  });

  it("rebuilds after a change it did not hear of, found by comparing with the chunks, and only then", async () => {
    const tenant = await app.tenant("Deaf Term Bank");
    const index = termIndex({ quietMs: 0, rebuildMs: 0 }, true);
    const first = await built(index, tenant.tenantId);
    expect(first?.size).toBe(0);
    // Compared again (every time here): the same chunks keep the same index.
    expect(await built(index, tenant.tenantId)).toBe(first);

    const added = await app.request("/api/knowledge/sources", {
      key: tenant.apiKey,
      body: { type: "manual", title: "Savings", content: "Our savings account pays interest monthly." },
    });
    expect(added.status).toBe(201);
    await expect.poll(async () => (await built(index, tenant.tenantId))?.candidates(["save"], 5, 300) ?? null).toHaveLength(1);
  });

  it("leaves a tenant with more chunks than its bound to the database", async () => {
    const index = termIndex({ maxChunks: 10, quietMs: 0 });
    expect(await built(index, bank.tenantId)).toBeNull();
    expect(await fullTextCandidates({ db: app.services.db, termIndex: index }, bank.tenantId, "lost card", 5)).toEqual(
      await fromDatabase(bank.tenantId, "lost card", 5),
    );
  });

  it("drops the least recently searched tenant's index when all of them hold more postings than the budget", async () => {
    const small = await app.tenant("Small Term Bank");
    const content = "Branches open on Saturday mornings.";
    expect(
      (await app.request("/api/knowledge/sources", { key: small.apiKey, body: { type: "manual", title: "Hours", content } }))
        .status,
    ).toBe(201);
    const bankTerms = await built(termIndex({ quietMs: 0 }), bank.tenantId);
    const index = termIndex({ quietMs: 0, maxPostings: bankTerms!.postings });
    expect(await built(index, bank.tenantId)).not.toBeNull();
    expect(await built(index, small.tenantId)).not.toBeNull();
    // The bank's index went to make room, and is not rebuilt at once (it would push the other out in turn).
    expect(index.terms(bank.tenantId)).toBeNull();
    await index.settled();
    expect(index.terms(bank.tenantId)).toBeNull();
  });
});
