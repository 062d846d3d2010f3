import { describe, expect, it } from "vitest";
import type { Turn } from "../../src/ai/engine.js";
import { followUpOf, leaning } from "../../src/pipeline/follow-up.js";

describe("a message that leans on the question before it", () => {
  it.each([
    ["is it free?", "refers"],
    ["how long do they take?", "refers"],
    ["Can I change that in the app?", "refers"],
    ["and abroad?", "continues"],
    ["what about saturday?", "continues"],
    ["and how do I reset my PIN?", "continues"],
    ["How do I reset my PIN?", null],
    ["What is the contactless payment limit?", null],
    ["I ordered a new card last week and it still has not arrived at my address", null],
  ])("reads %j as %s", (text, how) => {
    expect(leaning(text)).toBe(how);
  });

  const history: Turn[] = [
    { role: "customer", content: "How do I replace a damaged card?" },
    { role: "assistant", content: "Order a replacement in the app." },
    { role: "customer", content: "is it free?" },
    { role: "assistant", content: "Yes, it is free of charge." },
  ];

  it("is read with the latest question that states its own subject, through a chain of follow-ups", () => {
    expect(followUpOf("how long does it take?", history)).toEqual({
      question: "How do I replace a damaged card? how long does it take?",
      first: true,
    });
  });

  it("is read alone first when it only carries on, and not at all without an earlier question", () => {
    expect(followUpOf("and abroad?", history)).toEqual({
      question: "How do I replace a damaged card? and abroad?",
      first: false,
    });
    expect(followUpOf("is it free?", [])).toBeNull();
    expect(followUpOf("How do I reset my PIN?", history)).toBeNull();
  });
});
