import { z } from "zod";
import { channelNames } from "../channels/names.js";

export const expectations = ["source", "contains", "decline", "handoff"] as const;
export type Expectation = (typeof expectations)[number];

/** A tenant's evaluation set is replayed in one request: it stays small enough for that. */
export const maxCasesPerTenant = 500;

/** What a right reply to a test question does, as stored on a case. */
export interface CaseExpectation {
  expect: Expectation;
  source: string | null;
  contains: string[];
}

export interface EvaluationCaseInput extends CaseExpectation {
  question: string;
  channel: (typeof channelNames)[number] | null;
  /** The customer's messages before the question, in the same conversation: a follow-up's context. */
  earlier: string[];
}

/** Earlier messages a case may be asked after: a short conversation, not a transcript. */
export const maxEarlierMessages = 5;

const phrase = z.string().trim().min(1).max(200);

/** A case's fields, each checked, and the expectation's own field required (and the other one refused). */
export const caseInput = z
  .object({
    question: z.string().trim().min(1).max(4_000),
    channel: z.enum(channelNames).nullish(),
    expect: z.enum(expectations),
    source: z.string().trim().min(1).max(300).nullish(),
    contains: z.array(phrase).max(20).nullish(),
    earlier: z.array(z.string().trim().min(1).max(4_000)).max(maxEarlierMessages).nullish(),
  })
  .superRefine((c, ctx) => {
    if (c.expect === "source" && !c.source) ctx.addIssue({ code: "custom", path: ["source"], message: "required for source" });
    if (c.expect !== "source" && c.source) ctx.addIssue({ code: "custom", path: ["source"], message: "only for source" });
    if (c.expect === "contains" && !c.contains?.length)
      ctx.addIssue({ code: "custom", path: ["contains"], message: "at least one phrase for contains" });
    if (c.expect !== "contains" && c.contains?.length)
      ctx.addIssue({ code: "custom", path: ["contains"], message: "only for contains" });
  })
  .transform(
    (c): EvaluationCaseInput => ({
      question: c.question,
      channel: c.channel ?? null,
      expect: c.expect,
      source: c.source ?? null,
      contains: c.contains ?? [],
      earlier: c.earlier ?? [],
    }),
  );
