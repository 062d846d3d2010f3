import { countTokens } from "../knowledge/chunk.js";

/**
 * Markdown as plain text for channels that show it literally: headings, emphasis and code marks
 * dropped, links as "text (url)", bullets as "• ", tables as lines of cells.
 */
export function stripMarkdown(text: string): string {
  return text
    .replace(/```[a-z]*\n?([\s\S]*?)```/gi, "$1")
    .replace(/`([^`]+)`/g, "$1")
    .replace(/!\[([^\]]*)\]\(([^)\s]+)\)/g, "$1")
    .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_m, label: string, url: string) => (label === url ? url : `${label} (${url})`))
    .replace(/^\s{0,3}#{1,6}\s+/gm, "")
    .replace(/^\s{0,3}>\s?/gm, "")
    .replace(/^\s*[-*+]\s+/gm, "• ")
    .replace(/^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/gm, "")
    .replace(/^\s*\|(.*)\|\s*$/gm, (_m, cells: string) =>
      cells
        .split("|")
        .map((c) => c.trim())
        .join(" – "),
    )
    .replace(/(\*\*|__)(?=\S)([\s\S]*?\S)\1/g, "$2")
    .replace(/(^|[^\w*])[*_](?=\S)([^*_\n]*?\S)[*_](?!\w)/g, "$1$2")
    .replace(/~~(.+?)~~/g, "$1")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

const ellipsis = "…";

/**
 * The text cut to at most `max` characters (code points) where a reader expects a cut: after a
 * sentence when one ends in the second half, else at a space, with an ellipsis marking the cut.
 */
export function cutAtBoundary(text: string, max: number, marker = ellipsis): string {
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  const cut = cleanCut(chars.slice(0, max - Array.from(marker).length).join(""));
  return cut.atSentence ? cut.text : `${cut.text.replace(/[,;:–-]$/, "")}${marker}`;
}

/** The longest head of `head` a reader accepts as a cut: up to a sentence end in its second half, else a space. */
function cleanCut(head: string): { text: string; atSentence: boolean } {
  const sentenceEnd = Math.max(head.lastIndexOf(". "), head.lastIndexOf("! "), head.lastIndexOf("? "), head.lastIndexOf("\n"));
  if (sentenceEnd >= head.length / 2) return { text: head.slice(0, sentenceEnd + 1).trimEnd(), atSentence: true };
  const space = head.lastIndexOf(" ");
  return { text: (space >= head.length / 2 ? head.slice(0, space) : head).trimEnd(), atSentence: false };
}

/** The text cut cleanly to at most `maxTokens` tokens (cl100k, as the engine counts them). */
export function capTokens(text: string, maxTokens: number): string {
  if (countTokens(text) <= maxTokens) return text;
  // Each token is at least one character: find the longest clean cut within the budget by halving.
  let low = 1;
  let high = Array.from(text).length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (countTokens(cutAtBoundary(text, mid)) <= maxTokens) low = mid;
    else high = mid - 1;
  }
  return cutAtBoundary(text, low);
}

// The GSM 03.38 default alphabet, and its extension table whose characters take two septets.
const gsmBasic = new Set(
  Array.from(
    "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà",
  ),
);
const gsmExtended = new Set(Array.from("^{}\\[~]|€\f"));

export interface SmsSegments {
  encoding: "GSM-7" | "UCS-2";
  /** Septets for GSM-7, UTF-16 code units for UCS-2. */
  units: number;
  segments: number;
  /** Units one segment holds in a message of this many segments. */
  perSegment: number;
}

/** How an SMS is billed: GSM-7 (160 a message, 153 a segment when concatenated) or UCS-2 (70, 67). */
export function smsSegments(text: string): SmsSegments {
  let septets = 0;
  let gsm = true;
  for (const ch of text) {
    if (gsmBasic.has(ch)) septets += 1;
    else if (gsmExtended.has(ch)) septets += 2;
    else {
      gsm = false;
      break;
    }
  }
  const [units, single, multi] = gsm ? [septets, 160, 153] : [text.length, 70, 67];
  const segments = units === 0 ? 1 : units <= single ? 1 : Math.ceil(units / multi);
  return { encoding: gsm ? "GSM-7" : "UCS-2", units, segments, perSegment: segments === 1 ? single : multi };
}

/**
 * The text cut cleanly so that it fits in `maxSegments` SMS segments. A GSM-7 text is cut with "...":
 * the ellipsis character is not in the GSM alphabet and would bill the whole message as UCS-2.
 */
export function fitSmsSegments(text: string, maxSegments: number): string {
  if (smsSegments(text).segments <= maxSegments) return text;
  const marker = smsSegments(text).encoding === "GSM-7" ? "..." : ellipsis;
  let low = 1;
  let high = Array.from(text).length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (smsSegments(cutAtBoundary(text, mid, marker)).segments <= maxSegments) low = mid;
    else high = mid - 1;
  }
  return cutAtBoundary(text, low, marker);
}

// Typography that has a GSM 03.38 look-alike: one curly quote or dash must not turn a whole SMS into UCS-2
// (70 instead of 160 characters a segment), nor show as a box on a USSD screen.
const gsmLookalikes: Array<[RegExp, string]> = [
  [/[‘’‚‛′`´]/g, "'"],
  [/[“”„‟″«»]/g, '"'],
  [/[‐‑‒–—―−]/g, "-"],
  [/…/g, "..."],
  [/[•·●▪◦‣]/g, "-"],
  [/[\u00a0\u2000-\u200a\u202f\u205f\u3000]/g, " "],
  [/[\u200b-\u200d\u2060\ufeff]/g, ""],
];

/** Typographic characters replaced by their GSM-7 look-alikes; letters of other scripts are left as they are. */
export function gsmSafe(text: string): string {
  return gsmLookalikes.reduce((out, [pattern, plain]) => out.replace(pattern, plain), text);
}

/** The text in pages of at most `size` characters, each ending where a reader expects a break (USSD screens). */
export function pageText(text: string, size: number): string[] {
  const pages: string[] = [];
  let rest = text.trim();
  while (Array.from(rest).length > size) {
    const head = Array.from(rest).slice(0, size).join("");
    // A break right after the head is the best cut of all.
    const page = /\s/.test(rest[head.length] ?? "") ? head.trimEnd() : cleanCut(head).text || head;
    pages.push(page);
    rest = rest.slice(page.length).trim();
  }
  if (rest) pages.push(rest);
  return pages;
}

/**
 * A reply as a voice says it: no markdown, lists or emoji, links left out (a listener cannot click
 * them), and at most `maxWords` words, ending on a whole sentence where one fits.
 */
export function speakable(text: string, maxWords: number): string {
  const plain = stripMarkdown(text)
    .replace(/\s*\((?:https?:\/\/|www\.)[^)\s]*\)/gi, "")
    .replace(/(?:https?:\/\/|www\.)[^\s)]+[^\s).,;!?]/gi, "our website")
    .replace(/\p{Extended_Pictographic}\uFE0F?/gu, "")
    .split("\n")
    .map((line) => line.replace(/^\s*(?:•\s*|\d+[.)]\s+)/, "").trim())
    .filter(Boolean)
    .map((line) => (/[.!?:;]$/.test(line) ? line : `${line}.`))
    .join(" ")
    .replace(/\s*&\s*/g, " and ")
    .replace(/\s+/g, " ")
    .trim();
  const words = (s: string) => s.split(" ").filter(Boolean).length;
  if (words(plain) <= maxWords) return plain;
  let said = "";
  for (const sentence of plain.split(/(?<=[.!?])\s+/)) {
    if (words(said) + words(sentence) > maxWords) break;
    said = said ? `${said} ${sentence}` : sentence;
  }
  if (said) return said;
  return `${plain
    .split(" ")
    .slice(0, maxWords)
    .join(" ")
    .replace(/[,;:-]$/, "")}.`;
}

/** UTF-8 bytes, for providers whose limit is in bytes (photo-sharing DMs: 1,000). */
export function fitBytes(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  let max = Math.min(Array.from(text).length, maxBytes);
  while (max > 1 && Buffer.byteLength(cutAtBoundary(text, max)) > maxBytes) max -= Math.max(1, Math.floor(max / 20));
  return cutAtBoundary(text, max);
}

/** A channel's reply format: plain text or markdown, cut to its character (and token) limit. */
export function formatForChannel(
  text: string,
  limits: { plainText: boolean; maxChars: number; maxTokens?: number },
  settings: { maxReplyChars?: number },
): string {
  let out = limits.plainText ? stripMarkdown(text) : text.trim();
  if (limits.maxTokens) out = capTokens(out, limits.maxTokens);
  return cutAtBoundary(out, Math.min(limits.maxChars, settings.maxReplyChars ?? Number.POSITIVE_INFINITY));
}
