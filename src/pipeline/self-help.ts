import type { Answer, AnswerInput } from "../ai/engine.js";
import type { Services } from "../services.js";

// Said before the knowledge base's answer that follows a hand-off notice.
const lead = "While you wait: ";

/**
 * The knowledge base's answer to a message handed to the team for its urgency (a lost card, fraud): what the bank's
 * own help says to do now, such as freezing the card, should not wait for a person. Only a grounded answer is given;
 * a failing engine gives none, as the hand-off has been made.
 */
export async function selfHelp(services: Services, input: AnswerInput): Promise<Answer | null> {
  try {
    const answer = await services.engine.answer({ ...input, offerChoices: false });
    return answer.grounded ? { ...answer, text: `${lead}${answer.text}` } : null;
  } catch (err) {
    services.logger.warn({ err, engine: services.engine.name }, "no self-help answer after an urgent hand-off");
    return null;
  }
}
