import { z } from "zod";
import { channelNames } from "../channels/names.js";
import type { Prisma } from "../db/generated/prisma/client.js";
import { conversationStatuses } from "./status.js";

/** The filters of the conversation list, shared by the list and the transcript export. */
export const conversationFilterFields = {
  status: z.enum(conversationStatuses).nullish(),
  channel: z.enum(channelNames).nullish(),
  from: z.date().nullish(),
  to: z.date().nullish(),
  q: z.string().trim().min(1).max(200).nullish(),
};

/** The filters with `extra` fields (paging, a format), `from` not after `to`. */
export function withConversationFilter<T extends z.ZodRawShape>(extra: T) {
  return z.object({ ...extra, ...conversationFilterFields }).refine(
    (v) => {
      const { from, to } = v as ConversationFilter;
      return !from || !to || from <= to;
    },
    { message: "must not be after `to`", path: ["from"] },
  );
}

export type ConversationFilter = {
  [K in keyof typeof conversationFilterFields]?: z.infer<(typeof conversationFilterFields)[K]>;
};

/** The conversations a filter selects (within the caller's tenant: the client applies it). */
export function conversationWhere(filter: ConversationFilter): Prisma.ConversationWhereInput {
  return {
    ...(filter.status ? { status: filter.status } : {}),
    ...(filter.channel ? { channel: filter.channel } : {}),
    ...(filter.from || filter.to
      ? { createdAt: { ...(filter.from ? { gte: filter.from } : {}), ...(filter.to ? { lte: filter.to } : {}) } }
      : {}),
    ...(filter.q
      ? {
          OR: [
            { customerPhone: { contains: filter.q } },
            { customerId: { contains: filter.q } },
            { customerName: { contains: filter.q, mode: "insensitive" } },
            { messages: { some: { content: { contains: filter.q, mode: "insensitive" } } } },
          ],
        }
      : {}),
  };
}
