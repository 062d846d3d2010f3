import type { Services } from "../services.js";
import { englishLexemes } from "./english-lexemes.js";

// Ranking a match reads its chunk's whole tsvector: in a bank's knowledge base "card" or "account"
// is in most chunks, and ranking every chunk that shares one word with the question grows with the
// corpus (8,000 of 10,000 chunks, 110 ms). So matches are taken strictest first, all of the
// question's words, then all but one, and so on, and a level ranks at most `rankBudget` chunks.
// They are ranked by ts_rank (how often the question's words occur), not ts_rank_cd (how close together): on the
// embedded database ts_rank_cd took 7 ms of a 12 ms level at 10,000 chunks, a third of a chat request's database time,
// and the answer sets' retrieval and answers came out the same with either (test/bench/README.md, answers).
const rankBudget = 300;
// A level is "at least m of n words": an OR of the C(n, m) AND-groups, which stays small for n ≤ 6.
const maxTerms = 6;

/** A lexeme as a tsquery operand: quoted, so that no character of it is read as an operator. */
const operand = (lexeme: string) => `'${lexeme.replaceAll("\\", "\\\\").replaceAll("'", "''")}'`;

function combinations<T>(items: T[], size: number): T[][] {
  if (size === 0) return [[]];
  return items.flatMap((item, i) => combinations(items.slice(i + 1), size - 1).map((rest) => [item, ...rest]));
}

/** The tsquery matching chunks that contain at least `m` of the terms. */
function atLeast(terms: string[], m: number): string {
  return combinations(terms, m)
    .map((group) => `(${group.map(operand).join(" & ")})`)
    .join(" | ");
}

// A level's matches (the query's `every` tsquery) and its best ones, ranked by all of the question's words (`anyterm`).
const rankedLevel = `
  level AS (
    SELECT id, search FROM chunks
     WHERE tenant_id = $1 AND search @@ (SELECT every FROM query) AND NOT (id = ANY($2::text[]))
     LIMIT $3),
  ranked AS (
    SELECT id, ts_rank(search, (SELECT anyterm FROM query)) AS rank FROM level ORDER BY rank DESC, id LIMIT $4)`;

/**
 * The CTE `terms`: the question's distinct lexemes (the parameter's), at most `maxTerms`, longest first. The longest
 * stems are the likeliest to be specific ("mortgage" over "get").
 */
const longestTerms = (param: string) => `terms AS (
       SELECT COALESCE(array_agg(t ORDER BY length(t) DESC, t COLLATE "C"), '{}') AS terms FROM (
         SELECT t FROM unnest(tsvector_to_array(to_tsvector('english', ${param}))) AS t
          ORDER BY length(t) DESC, t COLLATE "C" LIMIT ${maxTerms}) AS longest)`;

/** `longestTerms` in the process: the longest first, ties in byte order (the lexemes are ASCII), at most `maxTerms`. */
const longest = (lexemes: string[]) =>
  lexemes.sort((a, b) => b.length - a.length || (a < b ? -1 : a > b ? 1 : 0)).slice(0, maxTerms);

/**
 * The question's lexemes a search matches, as `longestTerms` picks them: what an in-memory index is asked for. With no
 * statement when the question is plain text of words the database has stemmed before (src/knowledge/english-lexemes.ts).
 */
export async function questionStems(services: Pick<Services, "db">, query: string): Promise<string[]> {
  const lexemes = await englishLexemes(services.db, query);
  if (lexemes) return longest(lexemes);
  const [stems] = await services.db.sql.query<{ terms: string[] }>(`WITH ${longestTerms("$1")} SELECT terms FROM terms`, [query]);
  return stems?.terms ?? [];
}

/**
 * A tenant's chunks that share words with the query, best first: those with more of its words
 * before those with fewer, ranked by `ts_rank` within a level, at most `limit`. From the tenant's in-memory index
 * (src/knowledge/term-index.ts) when it has a current one, else from the database.
 */
export async function fullTextCandidates(
  services: Pick<Services, "db" | "termIndex">,
  tenantId: string,
  query: string,
  limit: number,
): Promise<string[]> {
  const sql = services.db.sql;
  const index = services.termIndex.terms(tenantId);
  if (index) return index.candidates(await questionStems(services, query), limit, rankBudget);
  // The first level, all of the question's words, is asked in the statement that finds the question's stems: one
  // round trip fewer on every search. Its operands are quoted as `operand` quotes them.
  const [first] = await sql.query<{ terms: string[]; ids: string[]; total: string }>(
    `WITH ${longestTerms("$5")},
     operands AS (
       SELECT array_agg('''' || replace(replace(t, '\\', '\\\\'), '''', '''''') || '''') AS quoted
         FROM terms, unnest(terms.terms) AS t),
     query AS (
       SELECT array_to_string(quoted, ' & ')::tsquery AS every, array_to_string(quoted, ' | ')::tsquery AS anyterm
         FROM operands),
     ${rankedLevel}
     SELECT terms.terms, ARRAY(SELECT id FROM ranked ORDER BY rank DESC, id) AS ids, (SELECT count(*) FROM level) AS total
       FROM terms`,
    [tenantId, [], rankBudget + 1, limit, query],
  );
  const terms = first?.terms ?? [];
  if (!terms.length) return [];
  const found = [...first!.ids];
  let total = Number(first!.total);
  const anyTerm = atLeast(terms, 1);
  // Past the budget a level's ranking covered only part of its matches: looser levels would be worse.
  for (let m = terms.length - 1; m >= 1 && found.length < limit && total <= rankBudget; m--) {
    const level = await sql.query<{ id: string; total: string }>(
      `WITH query AS (SELECT $5::tsquery AS every, $6::tsquery AS anyterm), ${rankedLevel}
       SELECT id, (SELECT count(*) FROM level) AS total FROM ranked ORDER BY rank DESC, id`,
      [tenantId, found, rankBudget + 1, limit - found.length, atLeast(terms, m), anyTerm],
    );
    found.push(...level.map((row) => row.id));
    total = Number(level[0]?.total ?? 0);
  }
  return found;
}
