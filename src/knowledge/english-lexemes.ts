import type { Database } from "../db/client.js";

/**
 * PostgreSQL's `to_tsvector('english', …)` of plain text, from the words the database has stemmed before: a search
 * whose question has only such words makes no statement to stem it (src/knowledge/full-text.ts, `questionStems`).
 *
 * The database stems each word, never the process: the english dictionary's stemmer is Snowball's and changes between
 * PostgreSQL versions (18 stems "added" as "add", 15 as "ad"), and chunks are searched by the database's stems. What
 * stays with the process is where the parser separates words in plain text: ASCII letters and digits, anything else a
 * blank ("don't" is "don" and "t"), and a word with a digit kept as it is, lower-cased (the simple dictionary). Any other
 * text (a hyphenated word, a decimal or a host name with its dots, an e-mail, a tag, letters beyond ASCII) is the
 * database's to parse whole. test/knowledge/english-lexemes.test.ts checks the result against the database's for ten
 * thousand customers' questions.
 *
 * A bank's customers use a few thousand words: over BANKING77's queries in random order, 80 % of the plain ones after the
 * first thousand have every word learned, 91 % after six thousand.
 */

// Blanks wherever they stand; a full stop only before a blank or the end (a dot before a letter or digit joins a host
// name or a decimal, and "card.." gives the lexeme "..").
const plainText = /^(?:[A-Za-z0-9 \t\n\r?!,;:'"()\u2019]|\.(?=[ \t\n\r?!,;:'"()\u2019]|$))*$/;
// The parser's words are at most 2,047 characters; a plain question's are far shorter.
const longestWord = 100;
// Words learned per database, forgotten all at once past this (about 2 MB).
const maxWords = 20_000;

/** A word's lexeme, null for a stop word. */
type Learned = Map<string, string | null>;
const learnedBy = new WeakMap<Pick<Database, "sql">, Learned>();

/** The words of plain text, lower-cased, as the parser separates them; null when the text is not plain. */
export function plainWords(text: string): string[] | null {
  if (!plainText.test(text)) return null;
  const words = text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  return words.some((word) => word.length > longestWord) ? null : words;
}

const hasDigit = (word: string) => /\d/.test(word);

/** The text's distinct lexemes, in no order; null when it is not plain text. */
export async function englishLexemes(db: Pick<Database, "sql">, text: string): Promise<string[] | null> {
  const words = plainWords(text);
  if (!words) return null;
  let learned = learnedBy.get(db);
  if (!learned) {
    learned = new Map();
    learnedBy.set(db, learned);
  }
  const lexemeOf: Learned = new Map();
  for (const word of words) {
    if (hasDigit(word)) lexemeOf.set(word, word);
    else if (learned.has(word)) lexemeOf.set(word, learned.get(word)!);
  }
  const unknown = [...new Set(words.filter((word) => !lexemeOf.has(word)))];
  if (unknown.length) {
    const rows = await db.sql.query<{ word: string; lexemes: string[] }>(
      "SELECT w AS word, tsvector_to_array(to_tsvector('english', w)) AS lexemes FROM unnest($1::text[]) AS w",
      [unknown],
    );
    if (learned.size + rows.length > maxWords) learned.clear();
    for (const { word, lexemes } of rows) {
      lexemeOf.set(word, lexemes[0] ?? null);
      learned.set(word, lexemes[0] ?? null);
    }
  }
  const lexemes = new Set<string>();
  for (const word of words) {
    const lexeme = lexemeOf.get(word);
    if (lexeme) lexemes.add(lexeme);
  }
  return [...lexemes];
}
