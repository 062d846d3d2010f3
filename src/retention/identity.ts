import { z } from "zod";
import { channelNames } from "../channels/names.js";
import { e164 } from "../channels/payload.js";
import type { Prisma } from "../db/generated/prisma/client.js";

/** One customer, as a bank's request names them: their id on one channel, or their phone number on every channel. */
export type CustomerIdentity =
  | { channel: string; customerId: string; phone?: undefined }
  | { phone: string; channel?: undefined; customerId?: undefined };

export const customerIdentityInput = z
  .object({
    channel: z.enum(channelNames).optional(),
    customerId: z.string().min(1).max(200).optional(),
    phone: z.string().min(1).max(40).optional(),
  })
  .superRefine((v, ctx) => {
    const byChannel = v.channel !== undefined || v.customerId !== undefined;
    if (byChannel === (v.phone !== undefined)) {
      ctx.addIssue({ code: "custom", message: "give either channel and customerId, or phone", path: [] });
    } else if (byChannel && (v.channel === undefined || v.customerId === undefined)) {
      ctx.addIssue({
        code: "custom",
        message: "channel and customerId go together",
        path: [v.channel ? "customerId" : "channel"],
      });
    } else if (v.phone !== undefined && !e164(v.phone)) {
      ctx.addIssue({ code: "custom", message: "is not a phone number", path: ["phone"] });
    }
  })
  .transform(
    (v): CustomerIdentity =>
      v.phone !== undefined ? { phone: e164(v.phone)! } : { channel: v.channel!, customerId: v.customerId! },
  );

/** The conversations of that customer (the caller's client narrows them to its tenant). */
export function conversationsOf(identity: CustomerIdentity): Prisma.ConversationWhereInput {
  return identity.phone !== undefined
    ? { customerPhone: identity.phone }
    : { channel: identity.channel, customerId: identity.customerId };
}

/**
 * The customer as the audit trail names them: a keyed digest, so that two requests about one customer can be told
 * to be the same while the trail never holds the identifier (a plain hash of a phone number is easily reversed).
 */
export function subjectOf(identity: CustomerIdentity, fingerprint: (secret: string) => string): string {
  const key = identity.phone !== undefined ? `phone:${identity.phone}` : `${identity.channel}:${identity.customerId}`;
  return `subj_${fingerprint(`customer:${key}`)}`;
}
