import { describe, expect, it } from "vitest";
import { redactMessages, redactPII } from "../../src/ai/redact.js";

const kinds = (text: string) => redactPII(text).found.map((f) => f.kind);

describe("redactPII", () => {
  it("masks Luhn-valid card numbers, keeping the last four digits", () => {
    expect(redactPII("My card is 4111 1111 1111 1111, please block it").text).toBe(
      "My card is [CARD •••• 1111], please block it",
    );
    expect(redactPII("card 5500-0000-0000-0004.").text).toBe("card [CARD •••• 0004].");
    expect(redactPII("4012888888881881").text).toBe("[CARD •••• 1881]");
    expect(redactPII("amex 3782 822463 10005").text).toBe("amex [CARD •••• 0005]");
    expect(kinds("4111 1111 1111 1111")).toEqual(["card"]);
  });

  it("never calls a Luhn-failing number a card: 8–17 digits are an account, longer ones are left alone", () => {
    expect(redactPII("typo 4111 1111 1111 1112").text).toBe("typo [ACCOUNT]");
    expect(kinds("4111111111111112")).toEqual(["account"]);
    expect(redactPII("ref 1234567890123456789").text).toBe("ref 1234567890123456789");
  });

  it("masks IBANs that pass the mod-97 check, with or without spaces, in any case", () => {
    expect(redactPII("IBAN DE89 3704 0044 0532 0130 00 please").text).toBe("IBAN [IBAN] please");
    expect(redactPII("to gb82west12345698765432.").text).toBe("to [IBAN].");
    expect(kinds("GB82 WEST 1234 5698 7654 32")).toEqual(["iban"]);
    expect(redactPII("GB00 WEST ABCD EFGH IJKL MN").text).toBe("GB00 WEST ABCD EFGH IJKL MN");
  });

  it("masks long account numbers", () => {
    expect(redactPII("account 12345678 and 0012345678901").text).toBe("account [ACCOUNT] and [ACCOUNT]");
    expect(redactPII("sort code 12-34-56 account 12345678").text).toBe("sort code 12-34-56 account [ACCOUNT]");
  });

  it("masks e-mail addresses", () => {
    expect(redactPII("mail jo.smith+bank@example.co.uk now").text).toBe("mail [EMAIL] now");
  });

  it("masks phone numbers in E.164 and common national formats", () => {
    for (const phone of [
      "+44 20 7946 0958",
      "+14155552671",
      "+1 (555) 123-4567",
      "(555) 123-4567",
      "555-123-4567",
      "020 7946 0958",
      "0712 345 678",
      "555-1234",
    ]) {
      expect(redactPII(`call me on ${phone} today`).text, phone).toBe("call me on [PHONE] today");
    }
  });

  it("leaves amounts, dates, times and short numbers alone", () => {
    const text =
      "I paid $1,250.00 on 2024-01-15 (15/01/2024, ref 20240115), then USD 2500000, 12 500 000 KES and 1.250.000,00 € " +
      "for 2023-2024; my PIN 1234 arrives in 3 days at 10:30, order 987654, balance 12345678.50.";
    expect(redactPII(text)).toEqual({ text, found: [] });
  });

  it("reports every finding, e-mails and IBANs first, then the numbers in order", () => {
    expect(kinds("4111 1111 1111 1111 / DE89370400440532013000 / a@b.io / +447700900123 / 12345678")).toEqual([
      "email",
      "iban",
      "card",
      "phone",
      "account",
    ]);
  });
});

describe("redactMessages", () => {
  it("redacts user and assistant messages, string or text parts, and leaves system messages alone", () => {
    const { messages, found } = redactMessages([
      { role: "system", content: "Our hotline is +44 20 7946 0958." },
      { role: "user", content: "my email is jo@example.com" },
      { role: "assistant", content: [{ type: "text", text: "Card 4111 1111 1111 1111 noted." }] },
    ]);
    expect(messages).toEqual([
      { role: "system", content: "Our hotline is +44 20 7946 0958." },
      { role: "user", content: "my email is [EMAIL]" },
      { role: "assistant", content: [{ type: "text", text: "Card [CARD •••• 1111] noted." }] },
    ]);
    expect(found).toEqual([{ kind: "email" }, { kind: "card" }]);
  });
});
