import { z } from "zod";
import { builder } from "./builder.js";

export const pagingInput = {
  page: z.number().int().min(1).default(1),
  limit: z.number().int().min(1).max(100).default(20),
};

export const pageArgs = builder.args((t) => ({
  page: t.int({ required: false, description: "1-based page number (default 1)" }),
  limit: t.int({ required: false, description: "Page size (default 20, at most 100)" }),
}));

export const skipTake = (page: number, limit: number) => ({ skip: (page - 1) * limit, take: limit });

export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  limit: number;
}

/** A page of items with the paging facts the REST bodies carry (`total`, `page`, `limit`). */
export function pageOf<T>(name: string, item: unknown) {
  return builder.objectRef<Page<T>>(name).implement({
    fields: (t) => ({
      items: t.field({ type: [item as any], resolve: (p) => p.items as never }),
      total: t.exposeInt("total"),
      page: t.exposeInt("page"),
      limit: t.exposeInt("limit"),
    }),
  });
}
