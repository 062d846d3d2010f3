import type { PreviewReply } from "../pipeline/preview.js";
import type { CaseExpectation } from "./cases.js";

export interface Verdict {
  passed: boolean;
  /** Why it failed, or what made it pass: shown next to the case in a run's results. */
  reason: string;
}

/** The assistant said it does not know: the engine answered without grounding, and no human took the message. */
export const declined = (reply: PreviewReply) => !reply.grounded && !reply.handoff;

const quoted = (items: string[]) => items.map((i) => `"${i}"`).join(", ");

/** A decline that listed questions says which: a near miss, one tap from the answer, reads differently from none. */
const listing = (reply: PreviewReply) => (reply.suggestions.length ? `declined, listing ${quoted(reply.suggestions)}` : "");

// Markdown emphasis and line breaks in a reply are presentation: "**24 hours**" contains "24 hours".
export const folded = (text: string) =>
  text
    .toLowerCase()
    .replace(/\*\*|__|`/g, "")
    .replace(/\s+/g, " ")
    .trim();

/**
 * Whether a reply does what the case expects. `sourceIds` are the ids of the tenant's knowledge sources the
 * case's `source` names (the id itself, or every source titled so, case-insensitively).
 */
export function judge(expected: CaseExpectation, reply: PreviewReply, sourceIds: ReadonlySet<string>): Verdict {
  switch (expected.expect) {
    case "source": {
      // An urgent hand-off that also gave the knowledge base's answer (src/pipeline/self-help.ts) answered.
      if (reply.handoff && !reply.grounded) return { passed: false, reason: "handed to a human instead of answering" };
      if (!reply.grounded) return { passed: false, reason: listing(reply) || "declined to answer" };
      if (reply.sources.some((s) => sourceIds.has(s.sourceId)))
        return { passed: true, reason: `${reply.handoff ? "handed to a human, " : ""}cited ${expected.source}` };
      return { passed: false, reason: `cited ${quoted([...new Set(reply.sources.map((s) => s.title))]) || "no source"} instead` };
    }
    case "contains": {
      // A decline that lists FAQ questions holds their words without answering them.
      const text = reply.suggestions.reduce((rest, question) => rest.replace(folded(question), " "), folded(reply.reply));
      const missing = expected.contains.filter((p) => !text.includes(folded(p)));
      const why = declined(reply) && listing(reply);
      return missing.length
        ? { passed: false, reason: `missing ${quoted(missing)}${why ? ` (${why})` : ""}` }
        : { passed: true, reason: `contains ${quoted(expected.contains)}` };
    }
    case "decline":
      if (declined(reply)) return { passed: true, reason: "declined" };
      return {
        passed: false,
        reason: reply.handoff ? "handed to a human instead of declining" : "answered instead of declining",
      };
    case "handoff":
      return reply.handoff
        ? { passed: true, reason: "handed to a human" }
        : { passed: false, reason: reply.grounded ? "answered instead of handing off" : "declined instead of handing off" };
  }
}
