import { describe, expect, it } from "vitest";
import { defaultIntentClassifier, defaultIntents } from "../../src/ai/intents/defaults.js";

// Everyday fee, charge and limit questions, none of them from the built-in examples.
const feeAndLimitQuestions = [
  "How much does it cost to send money to the United States?",
  "What's the maximum I can pay by tapping my card?",
  "is there a cap on wave and pay purchases",
  "what's my daily limit",
  "whats the fee for paying abroad",
  "is there a charge for cash withdrawals",
  "do you charge me for using another bank's atm",
  "how much is an international transfer to india",
  "what does it cost to pay in euros with my card",
  "how much can i spend on my card in one day",
  "is there a limit to how much i can take out",
  "whats the most i can transfer at once",
  "do i pay a fee for my current account? im 22",
  "how expensive is sending money to canada",
  "any charges if i use my card in thailand",
  "what is the exchange fee on card payments",
  "how much do you charge for an overdraft",
  "can i increase my contactless limit",
  "is there a maximum for online purchases",
  "what is the limit for instant transfers",
  "how much to wire 500 dollars to my mum in the states",
  "are there fees for a paper statement",
  "what do you charge for a new card",
  "how much cash can i get from the machine per day",
  "is withdrawing money at your atms free",
  "whats the charge for a payment in pounds",
  "what's the monthly account fee",
  "how high is the limit on my debit card",
  "do transfers to other banks cost anything",
  "what's the most i can pay with apple pay",
  "is it free to send money within europe",
  "fee for receiving money from abroad?",
];

// Phone wallets, cheques and appointments, which share words with a lost card ("wallet", "lost") or a request for a person.
const everydayQuestions = [
  "how do I put my debit card on apple pay",
  "can i add my card to my iphone wallet",
  "does google pay work with your cards",
  "i posted a cheque and it got lost, can i stop it",
  "how long until a cheque clears",
  "I'd like an appointment with a mortgage adviser",
  "can i book a meeting at the branch",
];

// Signing in, passwords and the app: a bank's commonest questions, none of them from the built-in examples.
const accessQuestions = [
  "I forgot my password for the app",
  "how do i reset my online banking password",
  "cant log in to internet banking",
  "locked out of the app after 3 tries",
  "how often do I have to change my password",
  "i didnt get the code to log in",
  "how do i register for online banking",
  "my new phone, how do i get the app working",
  "the app says my password is wrong",
  "i want a new password for internet banking",
  "can i go back to a password i used before",
];

const fraudReports = [
  "there is a payment on my card I never made",
  "I think I've been scammed out of 300 euros",
  "someone hacked my online banking",
  "my card was used without my permission",
  "I got a text pretending to be you and I gave them my code",
  "there are transactions I don't recognise",
  "fraudulent charges on my account",
  "somebody took money from my account, it wasn't me",
  "there's a charge from a shop I've never been to",
  "I want to report fraud",
];

describe("the built-in intents tell a fee, limit or sign-in question from a fraud report", () => {
  const classifier = defaultIntentClassifier();
  const urgentOrHandoff = new Set(defaultIntents.filter((i) => i.urgent || i.agentType === "handoff").map((i) => i.name));

  it.each([...feeAndLimitQuestions, ...everydayQuestions])(
    "does not take %j for fraud, nor for anything that escalates",
    (question) => {
      const { intent, confidence } = classifier.classify(question);
      expect(intent === "fraud_report" || (urgentOrHandoff.has(intent) && confidence >= 0.5)).toBe(false);
    },
  );

  it.each(accessQuestions)("takes %j for a question about signing in, which the AI answers", (question) => {
    const { intent } = classifier.classify(question);
    expect(intent).toBe("online_banking_access");
    expect(urgentOrHandoff.has(intent)).toBe(false);
  });

  it.each(fraudReports)("still takes %j for a fraud report", (question) => {
    const { intent, confidence } = classifier.classify(question);
    expect(intent).toBe("fraud_report");
    expect(confidence).toBeGreaterThanOrEqual(0.5);
  });
});
