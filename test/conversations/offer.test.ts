import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dontKnow } from "../../src/ai/local.js";
import { defaultDisclosure } from "../../src/conversations/disclosure.js";
import { handoffNotice } from "../../src/conversations/escalate.js";
import { answerToOffer, chosenNumber } from "../../src/conversations/offer.js";
import { offerRefusedNotice } from "../../src/pipeline/index.js";
import { startTestApp, type TestApp } from "../helpers/app.js";

describe("answerToOffer", () => {
  it.each([
    "yes",
    "Yes please!",
    "yeah",
    "ok",
    "sure",
    "please do",
    "y",
    "yes connect me",
    "Yes, please put me through to someone",
  ])("reads %j as accepting", (text) => expect(answerToOffer(text)).toBe("accept"));
  it.each(["no", "No thanks", "nope", "no, I'm fine", "not now"])("reads %j as refusing", (text) =>
    expect(answerToOffer(text)).toBe("refuse"),
  );
  it.each(["yes, but how do I reset my PIN?", "ok so what is the fee for transfers", "How do I open an account?", ""])(
    "reads %j as no answer to the offer",
    (text) => expect(answerToOffer(text)).toBeNull(),
  );
});

describe("chosenNumber", () => {
  it.each([
    ["2", 2],
    ["2.", 2],
    ["#3", 3],
    ["option 1", 1],
    ["Number 2 please", 2],
    ["No. 3", 3],
    ["One.", 1],
    ["two", 2],
    ["2nd", 2],
    ["the first one", 1],
    ["Third!", 3],
    ["second, please", 2],
  ])("reads %j as choice %i", (text, number) => expect(chosenNumber(text)).toBe(number));
  it.each(["0", "10", "twenty", "the one with the fee", "2 cards please", "first time here", "one more question", "yes", ""])(
    "reads %j as no choice",
    (text) => expect(chosenNumber(text)).toBeNull(),
  );
});

describe("a customer's answer to the assistant's offer of a person, through /api/chat", () => {
  let app: TestApp;
  let key: string;
  const chat = async (message: string, conversationId?: string) => {
    const res = await app.request("/api/chat", { key, body: { message, conversationId } });
    expect(res.status).toBe(200);
    return res.body as { response: string; conversationId: string; metadata: { agentType: string } };
  };
  const status = async (id: string) => (await app.request(`/api/conversations/${id}`, { key })).body.status;
  // The first reply of a conversation follows the AI disclosure; the offer is the reply itself.
  const declined = async () => {
    const first = await chat("Do you sell gold coins?");
    expect(first.response).toBe(`${defaultDisclosure("Offer Bank", {}, "api")}\n\n${dontKnow}`);
    return first.conversationId;
  };

  beforeAll(async () => {
    app = await startTestApp();
    key = (await app.tenant("Offer Bank")).apiKey;
    const faq = "Q: How do I reset my PIN?\nA: Open the app, choose Cards, then Reset PIN.";
    expect(
      (await app.request("/api/knowledge/sources", { key, body: { type: "manual", title: "Cards", content: faq } })).status,
    ).toBe(201);
  });
  afterAll(() => app.close());

  it('hands over at once on "yes please"', async () => {
    const id = await declined();
    const reply = await chat("yes please", id);
    expect(reply.response).toBe(handoffNotice);
    expect(reply.metadata.agentType).toBe("handoff");
    expect(await status(id)).toBe("escalated");
  });

  it('acknowledges "no thanks" and goes on answering', async () => {
    const id = await declined();
    const reply = await chat("no thanks", id);
    expect(reply.response).toBe(offerRefusedNotice);
    expect(await status(id)).toBe("open");
    expect((await chat("how do i reset my pin", id)).response).toContain("Reset PIN");
  });

  it('answers "yes, but…" as the question it is, and a "yes" with no offer before it is no hand-off', async () => {
    const id = await declined();
    expect((await chat("yes, but how do I reset my PIN?", id)).response).toContain("Reset PIN");
    expect((await chat("yes", id)).metadata.agentType).not.toBe("handoff");
    expect(await status(id)).toBe("open");
  });
});
