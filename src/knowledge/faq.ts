/**
 * FAQ-shaped text as question–answer units: a customer's question is matched against the FAQ's question as well as
 * its answer, and an answer with its conditions ("free under 26, otherwise 4 EUR a month") stays one unit.
 *
 * Banks paste FAQs in many shapes; each is recognised here, once, for every kind of source (manual text, PDF, web page):
 * `Q:`/`A:` pairs, bold or numbered question lines, plain lines ending in "?" followed by their answer, and
 * glossaries of `Term: definition` (or `Term - definition`, or `Term` then `: definition`) lines.
 * Markdown question headings need nothing here: a heading already starts a section of its own.
 */

export interface FaqUnit {
  /** The FAQ's question, or the glossary's term. */
  question: string;
  /** The whole answer: for a glossary line, the line itself, which names its subject. */
  answer: string;
}

/** A section's lines as FAQ units, with the text that is not part of any (an introduction, prose between). */
export interface FaqSplit {
  units: FaqUnit[];
  /** Paragraphs outside the units, in order, to be chunked as ordinary text. */
  rest: string[];
}

const questionPrefix = /^(?:Q|Question)\s*(?:\d+\s*)?[:.)\-–]\s*(.+)$/i;
const answerPrefix = /^(?:A|Answer)\s*[:.)\-–]\s*/i;
const numbered = /^\d{1,3}[.)]\s+(.+\?)$/;
const bold = /^(?:\*\*|__)(.+?)(?:\*\*|__)\s*$/;
const bulletPrefix = /^\s*(?:[-*•]|\d+[.)])\s+/;
// "Monthly account fee: Free for customers under 26" or "Monthly account fee – Free…": a short term, then its definition.
const glossaryLine = /^([^:?!.;]{2,60}?)\s*(?::|\s[-–—]\s)\s*(\S.*)$/;
const definitionLine = /^:\s+(\S.*)$/;
const maxQuestionWords = 30;
const maxTermWords = 8;
// One question line in prose is rhetoric; an FAQ asks several.
const minPlainQuestions = 2;
const minGlossaryLines = 3;

const words = (text: string) => text.split(/\s+/).filter(Boolean).length;
// "Fees" above a glossary names what follows; alone, as a chunk, it answers nothing.
const topicOnly = (paragraph: string) => paragraph.split("\n").every((line) => words(line) <= 5 && !/[.!?:]$/.test(line));

/** The question a line asks as an FAQ entry, and whether its shape says so on its own (a `Q:` or bold line). */
function questionOf(line: string): { text: string; explicit: boolean } | null {
  const prefixed = questionPrefix.exec(line)?.[1];
  if (prefixed) return { text: prefixed.trim(), explicit: true };
  const emphasised = bold.exec(line)?.[1]?.trim();
  if (emphasised && words(emphasised) <= maxQuestionWords) return { text: emphasised, explicit: true };
  const listed = numbered.exec(line)?.[1];
  if (listed && words(listed) <= maxQuestionWords) return { text: listed.trim(), explicit: false };
  if (line.endsWith("?") && words(line) <= maxQuestionWords && !bulletPrefix.test(line)) return { text: line, explicit: false };
  return null;
}

// "Q: Can I…? A: Yes…", "**Can I…?** Yes…" or "Can I…? Yes…" on one line: the question, then its answer.
const inlineAnswer = [
  /^((?:Q|Question)\s*[:.)\-–]\s*[^?]+\?)\s+((?:A|Answer)\s*[:.)\-–]\s*.+)$/i,
  /^((?:\*\*|__)[^*_]+\?(?:\*\*|__))\s*(\S.+)$/,
  /^(\d{1,3}[.)]\s+[^.!?]+\?)\s+(\S.+)$/,
  /^([^.!?:]{8,200}\?)\s+(\S.+)$/,
];

function splitInlineAnswers(lines: string[]): string[] {
  return lines.flatMap((line) => {
    for (const pattern of inlineAnswer) {
      const match = pattern.exec(line);
      if (match && !bulletPrefix.test(line)) return [match[1]!, match[2]!];
    }
    return [line];
  });
}

/** Lines grouped under the question lines they follow; null when the lines are not shaped as an FAQ. */
function questionAnswerUnits(given: string[]): FaqSplit | null {
  const lines = splitInlineAnswers(given);
  const asked = lines.map((line) => (line ? questionOf(line) : null));
  const count = asked.filter(Boolean).length;
  const explicit = asked.some((q) => q?.explicit);
  if (count === 0 || (!explicit && count < minPlainQuestions)) return null;
  const units: FaqUnit[] = [];
  const rest: string[] = [];
  let current: { question: string; answer: string[] } | null = null;
  let loose: string[] = [];
  let ended = false;
  const flush = () => {
    if (current?.answer.length) units.push({ question: current.question, answer: current.answer.join("\n") });
    else if (current) loose.push(current.question);
    current = null;
    rest.push(...loose.join("\n").split(/\n{2,}/));
    loose = [];
    ended = false;
  };
  for (const [i, line] of lines.entries()) {
    const question = asked[i];
    if (question) {
      flush();
      current = { question: question.text, answer: [] };
      continue;
    }
    if (!line) {
      if (current?.answer.length) ended = true;
      else if (loose.length) loose.push("");
      continue;
    }
    // After a blank line a list still belongs to the answer; other text (a heading, a glossary) does not.
    if (current && ended && !bulletPrefix.test(line)) {
      units.push({ question: current.question, answer: current.answer.join("\n") });
      current = null;
    }
    ended = false;
    if (current) current.answer.push(line.replace(answerPrefix, ""));
    else loose.push(line);
  }
  flush();
  return units.length ? { units, rest: rest.map((p) => p.trim()).filter(Boolean) } : null;
}

/**
 * `Term: definition` lines (at least a few of them: one such line may be prose), each a unit of its own, and definition
 * lists (`Term` then `: definition`), whose shape says what they are even when a section holds only one or two.
 */
function glossaryUnits(lines: string[]): FaqSplit | null {
  const found: Array<{ unit: FaqUnit; listed: boolean; line: string }> = [];
  const rest: string[] = [];
  for (const [i, line] of lines.entries()) {
    if (!line) continue;
    const definition = definitionLine.exec(line)?.[1];
    if (definition) continue;
    const next = definitionLine.exec(lines[i + 1] ?? "")?.[1];
    if (next && words(line) <= maxTermWords) {
      found.push({ unit: { question: line, answer: `${line}: ${next}` }, listed: true, line });
      continue;
    }
    const match = glossaryLine.exec(line.replace(bulletPrefix, ""));
    const term = match?.[1]?.replace(/^(?:\*\*|__)|(?:\*\*|__)$/g, "").trim();
    if (match && term && words(term) <= maxTermWords && !/^(?:https?|www)$/i.test(term)) {
      found.push({
        unit: { question: term, answer: line.replace(bulletPrefix, "").replace(/(?:\*\*|__)/g, "") },
        listed: false,
        line,
      });
    } else {
      rest.push(line);
    }
  }
  const kept = found.length >= minGlossaryLines ? found : found.filter((f) => f.listed);
  if (!kept.length) return null;
  return { units: kept.map((f) => f.unit), rest: [...rest, ...found.filter((f) => !kept.includes(f)).map((f) => f.line)] };
}

/** The FAQ units of a section's lines (blank lines kept as ""), or null when it is ordinary text. */
export function faqUnits(lines: string[]): FaqSplit | null {
  const asked = questionAnswerUnits(lines);
  // A glossary after the questions ("Fees" then its lines) is units too.
  const defined = glossaryUnits(asked ? asked.rest.join("\n\n").split("\n") : lines);
  const units = [...(asked?.units ?? []), ...(defined?.units ?? [])];
  const rest = (defined ?? asked)?.rest ?? [];
  return units.length ? { units, rest: rest.filter((paragraph) => !topicOnly(paragraph)) } : null;
}

/** How a unit reads as a chunk: its question on the first line, then the answer (what search and the engine see). */
export function unitText(unit: FaqUnit): string {
  return `${unit.question}\n${unit.answer}`;
}
