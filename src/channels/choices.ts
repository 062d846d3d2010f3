// The questions a decline lists (src/ai/local.ts), offered as a channel's own buttons. Where the provider gives a
// button an id or payload with room for it (WhatsApp's list rows, Messenger's quick replies), the button carries
// its question, marked as ours: a press asks that question even under an older reply, whose number the latest
// list may give to another. Buttons that are not ours are read by their label, as before. (Telegram's callback data
// holds 64 bytes, too few for a question: src/channels/botmsg.ts reads the pressed button's label instead.)

const marker = "ask:";

/** The id or payload of a button that asks `question`, within the provider's length. */
export const askingPayload = (question: string, maxLength: number) => `${marker}${question}`.slice(0, maxLength);

/** The question one of our buttons asks, from its id or payload; null for any other. */
function questionAsked(payload: string | null): string | null {
  return payload?.startsWith(marker) ? payload.slice(marker.length).trim() || null : null;
}

/**
 * What a pressed button says: the question of one of ours, marked as a choice (analytics count how often a listed
 * question is taken), else the button's label.
 */
export function pressedButton(payload: string | null, label: string | null): { text: string | null; choice?: true } {
  const question = questionAsked(payload);
  return question ? { text: question, choice: true } : { text: label };
}

/** A label within the provider's length, cut with an ellipsis. */
export const clipped = (text: string, maxLength: number) =>
  text.length <= maxLength ? text : `${text.slice(0, maxLength - 1).trimEnd()}…`;
