import { readFileSync } from "node:fs";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../src/db/client.js";
import { englishLexemes, plainWords } from "../../src/knowledge/english-lexemes.js";
import { questionStems } from "../../src/knowledge/full-text.js";
import { answerSetNames, readAnswerSet } from "../bench/answer-set.js";
import { questions as benchQuestions } from "../bench/chat-requests.js";
import { startTestApp, type TestApp } from "../helpers/app.js";

// The question's stems without a statement must be the database's: the term index's candidates are looked up by them,
// and a stem the database would have written otherwise would find nothing.

let app: TestApp;
let statements = 0;
/** The test database with its statements counted: words are learned per database, so each test's counts start here. */
const counted = (): Pick<Database, "sql"> => ({
  sql: {
    query: (text, params) => {
      statements++;
      return app.services.db.sql.query(text, params);
    },
    run: (text, params) => {
      statements++;
      return app.services.db.sql.run(text, params);
    },
    exec: (text) => app.services.db.sql.exec(text),
  },
});

beforeAll(async () => {
  app = await startTestApp();
});

afterAll(async () => {
  await app?.close();
});

/** Each text's lexemes by PostgreSQL's `to_tsvector('english', …)`, sorted. */
async function databaseLexemes(texts: string[]): Promise<string[][]> {
  const rows = await app.services.db.sql.query<{ lexemes: string[] }>(
    "SELECT tsvector_to_array(to_tsvector('english', t)) AS lexemes FROM unnest($1::text[]) WITH ORDINALITY AS u(t, n) ORDER BY n",
    [texts],
  );
  return rows.map((row) => [...row.lexemes].sort());
}

const customersQuestions = (): string[] => {
  const banking77: string[][] = parse(readFileSync(new URL("../../src/ai/data/banking77-train.csv", import.meta.url)), {
    from_line: 2,
  });
  const sets = answerSetNames().map(readAnswerSet);
  return [
    ...banking77.map(([text]) => text!),
    ...sets.flatMap((set) => [...set.cases.map((c) => c.question), ...set.followUps.flatMap((f) => f.turns)]),
    ...benchQuestions,
  ];
};

describe("English lexemes in the process", () => {
  it("are the database's for every customers' question they read, and read most of them", async () => {
    const texts = customersQuestions();
    const expected = await databaseLexemes(texts);
    const db = counted();
    let read = 0;
    for (const [i, text] of texts.entries()) {
      const lexemes = await englishLexemes(db, text);
      if (!lexemes) continue;
      read++;
      expect([...lexemes].sort(), text).toEqual(expected[i]);
    }
    expect(texts.length).toBeGreaterThan(10_000);
    // Questions with a hyphen, a decimal, an e-mail address or an ellipsis are the database's to read.
    expect(read / texts.length).toBeGreaterThan(0.85);
    // Most questions use words asked before: they cost no statement.
    expect(statements).toBeLessThan(read / 3);
  });

  it("ask the database only for words it has not stemmed before", async () => {
    const db = counted();
    const before = statements;
    expect((await englishLexemes(db, "Why was a fee added to my statement?"))!.sort()).toEqual(
      (await databaseLexemes(["Why was a fee added to my statement?"]))[0],
    );
    expect(statements).toBe(before + 1);
    expect((await englishLexemes(db, "statement fee added 2024?"))!.sort()).toEqual(
      (await databaseLexemes(["statement fee added 2024?"]))[0],
    );
    expect(statements).toBe(before + 1);
  });

  it("separate words at apostrophes, punctuation and line breaks as the parser does, stop words dropped", async () => {
    const texts = [
      "don't do it",
      "I'm locked out of my account!!",
      "we\u2019re open (mostly)",
      "3DS code 24h, 2,000 EUR",
      "12:30 today; fees?!",
      "Cards.",
      "costs 5. Then",
      "x'y'z",
      "hello:world a,b",
      'say "hi"\r\n\tnow',
      "",
      "The and of",
    ];
    const expected = await databaseLexemes(texts);
    const db = counted();
    for (const [i, text] of texts.entries()) expect([...(await englishLexemes(db, text))!].sort(), text).toEqual(expected[i]);
  });

  it("leave to the database what its parser reads otherwise", () => {
    for (const text of [
      "e-mail me",
      "1.5 %",
      "3 p.m.",
      "card..",
      "ok... so",
      "www.bank.com",
      "me@bank.com",
      "café",
      "a/b",
      "<b>",
    ]) {
      expect(plainWords(text), text).toBeNull();
    }
  });

  it("give a search the question's longest stems, as the database picks them", async () => {
    const question = "How much does replacing a stolen contactless debit card cost when travelling abroad?";
    const [fromDatabase] = await app.services.db.sql.query<{ terms: string[] }>(
      `SELECT ARRAY(SELECT t FROM unnest(tsvector_to_array(to_tsvector('english', $1))) AS t
                     ORDER BY length(t) DESC, t COLLATE "C" LIMIT 6) AS terms`,
      [question],
    );
    expect(await questionStems(app.services, question)).toEqual(fromDatabase!.terms);
    expect(await questionStems(app.services, "re-issue my e-mail")).toEqual(
      (await databaseLexemes(["re-issue my e-mail"]))[0]!.sort((a, b) => b.length - a.length || (a < b ? -1 : 1)),
    );
  });
});
