import type { Turn } from "../ai/engine.js";

// Words by which a short message points back at what was asked before ("is it free?", "how long do they take?").
const backReferences = new Set(["it", "its", "it's", "that", "this", "these", "those", "they", "them", "their", "one", "ones"]);
// Openings that carry on from the message before ("and abroad?", "what about savings accounts?").
const continuation = /^(and|but|also|plus|so|what about|how about|what if|same for|even)\b/;
// Longer messages state their own subject.
const maxWords = 8;

/**
 * How a message leans on the customer's question before it: `refers` when it points back at it ("is it free?"),
 * `continues` when it only carries on from it ("and how do I reset my PIN?", which may stand on its own), else null.
 */
export function leaning(text: string): "refers" | "continues" | null {
  const folded = text.trim().toLowerCase();
  const words = folded.match(/[a-z0-9']+/g) ?? [];
  if (!words.length || words.length > maxWords) return null;
  if (words.some((w) => backReferences.has(w))) return "refers";
  return continuation.test(folded) ? "continues" : null;
}

/**
 * A follow-up read with the customer's question it leans on ("How do I replace a damaged card? is it free?"): the
 * latest of their messages that states its own subject, as a chain of follow-ups leans on the question that started
 * it. Null when the message does not lean on one. `history` is the conversation before the message, oldest first.
 */
export function followUpOf(text: string, history: Turn[]): { question: string; first: boolean } | null {
  const how = leaning(text);
  if (!how) return null;
  const earlier = history.filter((turn) => turn.role === "customer").map((turn) => turn.content.trim());
  const subject = earlier.findLast((content) => !leaning(content)) ?? earlier.at(-1);
  // A message that refers back is read with that question first; one that only carries on is read alone first.
  return subject ? { question: `${subject} ${text.trim()}`, first: how === "refers" } : null;
}
