import type { Prisma } from "../db/generated/prisma/client.js";
import type { Services } from "../services.js";

/**
 * A customer's answer to the assistant's offer of a person ("Would you like me to connect you with one of our
 * team?"): "yes please" hands the conversation over at once, "no thanks" is acknowledged. Only a message that is
 * nothing but the answer counts: "yes, but how do I…" is a question, and is answered as one.
 */

const words = (text: string) =>
  text
    .toLowerCase()
    .replace(/['’`]/g, "")
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);

const acceptOpeners = new Set(
  "yes yeah yea yep yup ya yas y sure ok okay k please absolutely definitely of go alright i id that sounds connect put".split(
    " ",
  ),
);
const acceptWords = new Set([
  ...acceptOpeners,
  ..."course ahead do would like be great good nice fine right me through to someone somebody a person human agent please thanks thank you it".split(
    " ",
  ),
]);
const refuseOpeners = new Set("no nope nah n not".split(" "));
const refuseWords = new Set([
  ...refuseOpeners,
  ..."now thanks thank you its fine im ok okay good all right thats need i dont it".split(" "),
]);
const maxWords = 8;

export type OfferAnswer = "accept" | "refuse";

export function answerToOffer(text: string): OfferAnswer | null {
  const said = words(text);
  if (!said.length || said.length > maxWords) return null;
  const all = (set: Set<string>) => said.every((w) => set.has(w));
  if (acceptOpeners.has(said[0]!) && all(acceptWords)) return "accept";
  if (refuseOpeners.has(said[0]!) && all(refuseWords)) return "refuse";
  return null;
}

/** The metadata of the assistant's last reply in the conversation, before the message just stored. */
async function lastReplyMetadata(
  services: Services,
  conversation: { id: string; tenantId: string },
  excludeMessageId: string,
): Promise<Prisma.JsonObject> {
  const last = await services.db.prisma.message.findFirst({
    where: { tenantId: conversation.tenantId, conversationId: conversation.id, role: "assistant", id: { not: excludeMessageId } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    select: { metadata: true },
  });
  return (last?.metadata ?? {}) as Prisma.JsonObject;
}

/**
 * Whether the assistant's last reply in the conversation offered a person: it could not answer (grounded false, which
 * every engine records, whatever words it used to offer).
 */
export async function offeredPerson(
  services: Services,
  conversation: { id: string; tenantId: string },
  excludeMessageId: string,
): Promise<boolean> {
  const metadata = await lastReplyMetadata(services, conversation, excludeMessageId);
  return metadata.grounded === false && metadata.agentType === "fallback";
}

const numberWords = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine"];
const ordinalWords = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth"];
const choice =
  /^\s*(?:the\s+)?(?:(?:number|option|no\.?|#)\s*)?([1-9](?:st|nd|rd|th)?|[a-z]+)(?:\s+one)?(?:\s*,?\s*please)?\s*[.)!]?\s*$/i;

/**
 * The number of a message that is nothing but a choice from a numbered list, typed or spoken (a voice call's speech
 * comes as words): "2", "#2", "option 2", "two", "2nd", "the second one", "number two please"; else null.
 */
export function chosenNumber(text: string): number | null {
  const said = choice.exec(text)?.[1]?.toLowerCase();
  if (!said) return null;
  const digit = Number.parseInt(said, 10);
  if (digit >= 1) return digit;
  const index = Math.max(numberWords.indexOf(said), ordinalWords.indexOf(said));
  return index >= 0 ? index + 1 : null;
}

/**
 * The question the customer picked by its number from those the assistant's last reply listed when it could not
 * answer (`suggestions` of its metadata, src/ai/local.ts), or null: any other message is read as it is.
 */
export async function pickedSuggestion(
  services: Services,
  conversation: { id: string; tenantId: string },
  message: { id: string; content: string },
): Promise<string | null> {
  const picked = chosenNumber(message.content);
  if (!picked) return null;
  const metadata = await lastReplyMetadata(services, conversation, message.id);
  return listedQuestions(metadata)[picked - 1] ?? null;
}

/** The questions a stored reply lists by number (`suggestions` of its metadata), or none. */
export function listedQuestions(metadata: unknown): string[] {
  const listed = (metadata as { suggestions?: unknown } | null)?.suggestions;
  return Array.isArray(listed) ? listed.filter((question): question is string => typeof question === "string") : [];
}
