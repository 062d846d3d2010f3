export type PIIKind = "card" | "iban" | "account" | "email" | "phone";

export interface Redaction {
  text: string;
  found: Array<{ kind: PIIKind }>;
}

const email = /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/gu;
// Greedy on purpose: a trailing word ("… 00 please") is trimmed off by the checksum search below.
const ibanCandidate = /(?<![\p{L}\p{N}])[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,34}/giu;
// Digits joined by single spaces or dashes, optionally with a leading "+" and "(area)" groups. Not after a currency
// sign or a decimal/thousands separator, and not followed by one and more digits: amounts stay whole.
const digitRun = /(?<![\p{L}\p{N}_$€£¥₦₹.,/:+])\+?(?:\(\d{1,5}\)|\d)(?:[ -]?\(\d{1,5}\)|[ -]?\d)*(?![\p{L}\p{N}_]|[.,/:]\d)/gu;
const currencyBefore = /\b(?:USD|EUR|GBP|KES|NGN|ZAR|GHS|UGX|TZS|INR|CHF|JPY|CAD|AUD|Rs|KSh)\.? ?$/i;

function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

function ibanValid(compact: string): boolean {
  if (compact.length < 15 || compact.length > 34) return false;
  const rearranged = compact.slice(4) + compact.slice(0, 4);
  let remainder = 0;
  for (const ch of rearranged) {
    const value = /\d/.test(ch) ? ch : String(ch.charCodeAt(0) - 55);
    for (const digit of value) remainder = (remainder * 10 + Number(digit)) % 97;
  }
  return remainder === 1;
}

const year = (s: string) => /^(?:19|20)\d\d$/.test(s);
const month = (s: string) => Number(s) >= 1 && Number(s) <= 12;
const day = (s: string) => Number(s) >= 1 && Number(s) <= 31;

function dateLike(groups: string[]): boolean {
  const [a = "", b = "", c = ""] = groups;
  if (groups.length === 1 && a.length === 8) {
    return (
      (year(a.slice(0, 4)) && month(a.slice(4, 6)) && day(a.slice(6))) ||
      (day(a.slice(0, 2)) && month(a.slice(2, 4)) && year(a.slice(4)))
    );
  }
  if (groups.length === 2) return year(a) && year(b);
  if (groups.length === 3)
    return (year(a) && month(b) && day(c)) || (day(a) && month(b) && year(c)) || (month(a) && day(b) && year(c));
  return false;
}

/** "12 500 000": spaces as thousands separators, as many locales write amounts. */
const thousandsGrouped = (groups: string[]) =>
  groups.length > 1 && groups[0]!.length <= 3 && groups.slice(1).every((g) => g.length === 3);

/** National phone shapes: a trunk "0" prefix ("020 7946 0958"), or North American 3-4, 3-3-4, 1-3-3-4 groups. */
function phoneShaped(groups: string[], hasParens: boolean): boolean {
  if (hasParens) return true;
  if (groups.length < 2) return false;
  if (groups[0]!.startsWith("0")) return true;
  const shape = groups.map((g) => g.length).join("-");
  return shape === "3-4" || shape === "3-3-4" || shape === "1-3-3-4";
}

function classifyDigits(match: string): PIIKind | null {
  const digits = match.replace(/\D/g, "");
  const n = digits.length;
  if (match.startsWith("+")) return n >= 7 && n <= 15 ? "phone" : null;
  if (n >= 13 && n <= 19 && luhnValid(digits)) return "card";
  const groups = match.split(/[ \-()]+/).filter(Boolean);
  if (dateLike(groups)) return null;
  if (n >= 7 && n <= 12 && phoneShaped(groups, match.includes("("))) return "phone";
  if (thousandsGrouped(groups)) return null;
  return n >= 8 && n <= 17 ? "account" : null;
}

const masks: Record<Exclude<PIIKind, "card">, string> = {
  iban: "[IBAN]",
  account: "[ACCOUNT]",
  email: "[EMAIL]",
  phone: "[PHONE]",
};

/** The longest prefix of an IBAN-looking run that passes mod-97 and ends where a word ends. */
function ibanPrefix(candidate: string, after: string): string | null {
  for (let end = candidate.length; end >= 15; end--) {
    const next = end < candidate.length ? candidate[end]! : after;
    if (/[\p{L}\p{N}]/u.test(next)) continue;
    const prefix = candidate.slice(0, end).trimEnd();
    if (ibanValid(prefix.replace(/ /g, "").toUpperCase())) return prefix;
  }
  return null;
}

/**
 * Masks the customer's financial identifiers and contact details before text leaves for a model server or a log.
 * Decisions: a 13–19 digit number is a card only when it passes the Luhn check ("[CARD •••• 1234]", the last four
 * kept so the model can still tell cards apart); one that fails is no card, but a bare run of 8–17 digits is masked
 * as "[ACCOUNT]" whatever it is (a mistyped card, an account, a phone written without separators: over-masking is
 * the safe error); 18–19 failing digits are left alone. Amounts ("$1,250.00", "USD 2500000", "12 500 000"), dates
 * ("2024-01-15", "20240115") and numbers under 7 digits are never masked.
 */
export function redactPII(text: string): Redaction {
  const found: Array<{ kind: PIIKind }> = [];
  let out = text.replace(email, () => {
    found.push({ kind: "email" });
    return masks.email;
  });
  out = out.replace(ibanCandidate, (match: string, offset: number, whole: string) => {
    const iban = ibanPrefix(match, whole[offset + match.length] ?? "");
    if (!iban) return match;
    found.push({ kind: "iban" });
    return masks.iban + match.slice(iban.length);
  });
  out = out.replace(digitRun, (match: string, offset: number, whole: string) => {
    if (currencyBefore.test(whole.slice(Math.max(0, offset - 5), offset))) return match;
    const kind = classifyDigits(match);
    if (!kind) return match;
    found.push({ kind });
    return kind === "card" ? `[CARD •••• ${match.replace(/\D/g, "").slice(-4)}]` : masks[kind];
  });
  return { text: out, found };
}

type TextPart = { type: string; text?: string };
type MessageLike = { role: string; content?: unknown };

/**
 * Redacts what the customer and the conversation said (user, assistant, tool messages). System and developer
 * messages are left as they are: they carry the tenant's own published knowledge (its hotline, its IBAN for
 * payments), which answers need and which is nobody's personal data.
 */
export function redactMessages<T extends MessageLike>(messages: T[]): { messages: T[]; found: Redaction["found"] } {
  const found: Redaction["found"] = [];
  const redact = (text: string) => {
    const result = redactPII(text);
    found.push(...result.found);
    return result.text;
  };
  const redacted = messages.map((message) => {
    if (message.role === "system" || message.role === "developer") return message;
    if (typeof message.content === "string") return { ...message, content: redact(message.content) };
    if (Array.isArray(message.content)) {
      const content = (message.content as TextPart[]).map((part) =>
        part.type === "text" && typeof part.text === "string" ? { ...part, text: redact(part.text) } : part,
      );
      return { ...message, content };
    }
    return message;
  });
  return { messages: redacted, found };
}
