import type { Services } from "../services.js";

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

/**
 * A tenant's chunks that share words with the query, best first: those with more of its words
 * before those with fewer, ranked by `ts_rank` within a level, at most `limit`.
 */
export async function fullTextCandidates(services: Services, tenantId: string, query: string, limit: number): Promise<string[]> {
  const sql = services.db.sql;
  const [row] = await sql.query<{ terms: string[] }>(`SELECT tsvector_to_array(to_tsvector('english', $1)) AS terms`, [query]);
  // The longest stems are the likeliest to be specific ("mortgage" over "get").
  const terms = (row?.terms ?? []).sort((a, b) => b.length - a.length || a.localeCompare(b)).slice(0, maxTerms);
  if (!terms.length) return [];
  const anyTerm = atLeast(terms, 1);
  const found: string[] = [];
  for (let m = terms.length; m >= 1 && found.length < limit; m--) {
    const hits = await sql.query<{ id: string; total: string }>(
      `WITH level AS (
         SELECT id, search FROM chunks
          WHERE tenant_id = $1 AND search @@ $2::tsquery AND NOT (id = ANY($4::text[]))
          LIMIT $5)
       SELECT id, (SELECT count(*) FROM level) AS total FROM level
        ORDER BY ts_rank(search, $3::tsquery) DESC, id
        LIMIT $6`,
      [tenantId, atLeast(terms, m), anyTerm, found, rankBudget + 1, limit - found.length],
    );
    found.push(...hits.map((h) => h.id));
    // Past the budget this level's ranking covered only part of its matches: looser levels would be worse.
    if (Number(hits[0]?.total ?? 0) > rankBudget) break;
  }
  return found;
}
