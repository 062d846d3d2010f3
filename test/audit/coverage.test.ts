import { describe, expect, it } from "vitest";
import { schema } from "../../src/graphql/schema/index.js";

describe("audit coverage", () => {
  it("has every mutation say how it is audited: an action on a target, or why it is exempt", () => {
    const fields = Object.values(schema.getMutationType()?.getFields() ?? {});
    const unsaid = fields.filter((f) => !f.extensions.audit).map((f) => f.name);
    expect(unsaid, "add `audit: { action, target, id }` (or `{ exempt: why }`) to these mutations").toEqual([]);
    const exempt = fields.filter((f) => (f.extensions.audit as { exempt?: string }).exempt).map((f) => f.name);
    expect(exempt.sort()).toEqual([
      "addNote",
      "chat",
      "exchangeLoginCode",
      "login",
      "rateConversation",
      "rateMessage",
      "replyToConversation",
      "verifyMfaLogin",
    ]);
  });
});
