import { z } from "zod";
import type { Prisma } from "../db/generated/prisma/client.js";

/** The kinds of data a tenant keeps for a period of its own. */
export const dataClasses = ["messages", "identities", "auditRecords", "knowledgeFiles", "deliveryLogs"] as const;
export type DataClass = (typeof dataClasses)[number];

/** Days each class is kept; null: for ever (the default). */
export type RetentionPeriods = Record<DataClass, number | null>;

// The shortest period a class may be given: an audit trail kept under a year, or delivery logs gone while their
// retries may still run (a day), would be a setting's mistake rather than a bank's policy.
export const minimumDays: Record<DataClass, number> = {
  messages: 1,
  identities: 1,
  auditRecords: 365,
  knowledgeFiles: 1,
  deliveryLogs: 7,
};

const maximumDays = 36_500;

const days = (dataClass: DataClass) =>
  z.number().int().min(minimumDays[dataClass], `must be at least ${minimumDays[dataClass]} days`).max(maximumDays).nullable();

/** The settings input: every class optional (left as it is), null to keep for ever. */
export const retentionInput = z.object(
  Object.fromEntries(dataClasses.map((c) => [c, days(c).optional()])) as Record<
    DataClass,
    z.ZodOptional<ReturnType<typeof days>>
  >,
);

/** The tenant's periods from its settings (`settings.retention`). */
export function retentionOf(settings: Prisma.JsonValue): RetentionPeriods {
  const stored = ((settings as Prisma.JsonObject | null)?.retention ?? {}) as Partial<RetentionPeriods>;
  return Object.fromEntries(dataClasses.map((c) => [c, stored[c] ?? null])) as RetentionPeriods;
}
