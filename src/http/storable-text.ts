import type { FieldProblem } from "../errors.js";

// PostgreSQL stores neither U+0000 (in text, nor as \u0000 in jsonb) nor unpaired UTF-16 surrogates (jsonb
// refuses the escape; text would silently get U+FFFD). A caller's input with one is refused where it enters;
// a provider's payload is cleaned instead, since the provider cannot be asked to send it again differently.

// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is exactly what is looked for
const unstorable = /\u0000|\p{Cs}/u;
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is exactly what is removed
const nul = /\u0000/g;
const loneSurrogate = /\p{Cs}/gu;

/** How deep a request's JSON may nest: far beyond any real body, well within every recursive reader. */
export const maxInputDepth = 64;

function problemOf(text: string): string | null {
  if (!unstorable.test(text)) return null;
  return text.includes("\u0000") ? "contains a NUL character (U+0000)" : "contains an unpaired UTF-16 surrogate";
}

/**
 * The first place in a parsed input (JSON value, query string, form fields) that cannot be stored, or
 * null: a NUL or unpaired surrogate in a string or a key, or nesting deeper than `maxInputDepth`. Walked
 * without recursion, so that the deepest input cannot exhaust the stack here.
 */
export function unstorableInput(value: unknown, root: string): FieldProblem | null {
  const pending: Array<{ value: unknown; path: string; depth: number }> = [{ value, path: root, depth: 0 }];
  for (let item = pending.pop(); item; item = pending.pop()) {
    if (typeof item.value === "string") {
      const problem = problemOf(item.value);
      if (problem) return { path: item.path, message: problem };
      continue;
    }
    if (typeof item.value !== "object" || item.value === null) continue;
    if (item.depth >= maxInputDepth) return { path: item.path, message: `nested deeper than ${maxInputDepth} levels` };
    for (const [key, child] of Object.entries(item.value)) {
      const path = item.path ? `${item.path}.${key}` : key;
      const problem = problemOf(key);
      if (problem) return { path, message: `key ${problem}` };
      pending.push({ value: child, path, depth: item.depth + 1 });
    }
  }
  return null;
}

/** Text as PostgreSQL can store it: NULs removed, unpaired surrogates replaced by U+FFFD. */
export function storableText(text: string): string {
  return unstorable.test(text) ? text.replace(nul, "").replace(loneSurrogate, "\uFFFD") : text;
}

/**
 * A parsed provider payload with every string (and key) made storable; null when it nests deeper than
 * `maxInputDepth`, which no provider's format does.
 */
export function storableValue<T>(value: T, depth = 0): T | null {
  if (typeof value === "string") return storableText(value) as T;
  if (typeof value !== "object" || value === null) return value;
  if (depth >= maxInputDepth) return null;
  const entries: Array<[string, unknown]> = [];
  for (const [key, child] of Object.entries(value)) {
    const clean = storableValue(child, depth + 1);
    if (clean === null && child !== null) return null;
    entries.push([storableText(key), clean]);
  }
  return (Array.isArray(value) ? entries.map(([, v]) => v) : Object.fromEntries(entries)) as T;
}
