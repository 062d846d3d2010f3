import { describe, expect, it } from "vitest";
import { chunkText } from "../../src/knowledge/chunk.js";

const units = (text: string) => chunkText(text).map((c) => ({ heading: c.heading, text: c.text }));

describe("FAQ-shaped text is chunked as question–answer units", () => {
  it("splits Q:/A: pairs into one chunk each, the question first and the whole answer after it", () => {
    const chunks = units(
      [
        "# Everyday banking",
        "",
        "Q: Is there a monthly fee for the current account?",
        "A: The current account is free for customers under 26. Otherwise it costs 4 EUR a month.",
        "",
        "Q: What is the contactless limit?",
        "A: Up to 50 EUR per payment. Above that, insert your card and enter your PIN.",
      ].join("\n"),
    );
    expect(chunks).toEqual([
      {
        heading: "Everyday banking › Is there a monthly fee for the current account?",
        text: "Is there a monthly fee for the current account?\nThe current account is free for customers under 26. Otherwise it costs 4 EUR a month.",
      },
      {
        heading: "Everyday banking › What is the contactless limit?",
        text: "What is the contactless limit?\nUp to 50 EUR per payment. Above that, insert your card and enter your PIN.",
      },
    ]);
  });

  it("recognises bold and plain question lines, keeping a list that follows an answer in it", () => {
    const chunks = units(
      [
        "**How do I replace a damaged card?**",
        "Order one in the app under Cards. It is free and arrives within 5 business days.",
        "",
        "Can I use my card abroad?",
        "Yes, in every country that accepts Visa. Abroad you pay:",
        "- 2 % per cash withdrawal",
        "- nothing for card payments",
      ].join("\n"),
    );
    expect(chunks.map((c) => c.heading)).toEqual(["How do I replace a damaged card?", "Can I use my card abroad?"]);
    expect(chunks[1]!.text).toContain("- 2 % per cash withdrawal\n- nothing for card payments");
  });

  it("makes each line of a glossary of fees a unit, after the questions of the same section", () => {
    const chunks = units(
      [
        "What is the overdraft rate?",
        "12.9 % a year on the amount overdrawn.",
        "",
        "Are paper statements free?",
        "No, see the fees below.",
        "",
        "Fees",
        "Monthly account fee: Free under 26; otherwise 4 EUR per month.",
        "ATM withdrawal abroad - 2 % of the amount, minimum 3 EUR.",
        "Paper statement: 2 EUR each.",
      ].join("\n"),
    );
    expect(chunks.map((c) => c.heading)).toEqual([
      "What is the overdraft rate?",
      "Are paper statements free?",
      "Monthly account fee",
      "ATM withdrawal abroad",
      "Paper statement",
    ]);
    expect(chunks[2]!.text).toBe("Monthly account fee\nMonthly account fee: Free under 26; otherwise 4 EUR per month.");
  });

  it("makes each entry of a definition list a unit, even when a section holds only two", () => {
    const chunks = units(
      [
        "## Limits",
        "",
        "Daily ATM withdrawal limit",
        ": 1,000 EUR by default. You can change it in the app between 100 EUR and 2,500 EUR.",
        "",
        "Daily card payment limit",
        ": 3,000 EUR by default, for shop and online card payments together.",
      ].join("\n"),
    );
    expect(chunks.map((c) => c.heading)).toEqual(["Limits › Daily ATM withdrawal limit", "Limits › Daily card payment limit"]);
    expect(chunks[0]!.text).toBe(
      "Daily ATM withdrawal limit\nDaily ATM withdrawal limit: 1,000 EUR by default. You can change it in the app between 100 EUR and 2,500 EUR.",
    );
    // One `Term: definition` line alone is prose, not a glossary.
    expect(units("Note: branches close early on 24 December.")).toHaveLength(1);
    expect(units("Note: branches close early on 24 December.")[0]!.heading).toBeNull();
  });

  it("leaves prose with a single rhetorical question, and a section under a question heading, as ordinary chunks", () => {
    const prose = "Why bank with us?\nWe have served families for a hundred years. Our advisers know your town.";
    expect(units(prose)).toEqual([{ heading: null, text: prose }]);
    const heading =
      "## What documents do I need?\nA passport or ID card.\nBilling: a recent utility bill.\nIncome: a payslip.\nTax: your number.";
    expect(units(heading)).toHaveLength(1);
    expect(units(heading)[0]!.heading).toBe("What documents do I need?");
  });
});

describe("FAQ entries written on one line", () => {
  it("splits the question from its answer, with or without Q:/A: or bold", () => {
    const chunks = units(
      [
        "Q: Can I open an account online? A: Yes, in the app in about ten minutes with your ID card.",
        "**Is the app free?** Yes, it costs nothing to download and use.",
        "How long does a card take to arrive? New cards arrive within 5 business days.",
        "What is the daily ATM limit? 1,000 EUR, adjustable in the app.",
      ].join("\n\n"),
    );
    expect(chunks.map((c) => c.text)).toEqual([
      "Can I open an account online?\nYes, in the app in about ten minutes with your ID card.",
      "Is the app free?\nYes, it costs nothing to download and use.",
      "How long does a card take to arrive?\nNew cards arrive within 5 business days.",
      "What is the daily ATM limit?\n1,000 EUR, adjustable in the app.",
    ]);
  });
});
