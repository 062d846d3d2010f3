import { z } from "zod";
import type { Prisma } from "../../db/generated/prisma/client.js";
import { AppError, notFound } from "../../errors.js";
import { builder } from "../builder.js";
import { type Page, pageArgs, pageOf, pagingInput, skipTake } from "../paging.js";
import { parseInput } from "../validate.js";

const jobStatuses = ["pending", "running", "completed", "dead"] as const;

export const Job = builder.prismaObject("Job", {
  description: "Background work: inbound processing, outbound sends, crawls. `dead` jobs are the dead letters.",
  fields: (t) => ({
    id: t.exposeID("id"),
    queue: t.exposeString("queue"),
    status: t.exposeString("status"),
    attempts: t.exposeInt("attempts"),
    maxAttempts: t.exposeInt("maxAttempts"),
    runAt: t.expose("runAt", { type: "DateTime" }),
    lastError: t.exposeString("lastError", { nullable: true }),
    payload: t.expose("payload", { type: "JSON" }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    finishedAt: t.expose("finishedAt", { type: "DateTime", nullable: true }),
  }),
});

type JobRow = Prisma.JobGetPayload<object>;
const JobPage = pageOf<JobRow>("JobPage", Job);

builder.queryField("jobs", (t) =>
  t.field({
    type: JobPage,
    description: "The tenant's background jobs, newest first; status `dead` lists the dead letters",
    authScopes: { permission: "configure" },
    args: { ...pageArgs, status: t.arg.string({ required: false }), queue: t.arg.string({ required: false }) },
    resolve: async (_root, args, ctx): Promise<Page<JobRow>> => {
      const input = parseInput(
        z.object({ ...pagingInput, status: z.enum(jobStatuses).optional(), queue: z.string().max(100).optional() }),
        args,
      );
      const where = { ...(input.status ? { status: input.status } : {}), ...(input.queue ? { queue: input.queue } : {}) };
      const [items, total] = await Promise.all([
        ctx.db.job.findMany({ where, orderBy: { createdAt: "desc" }, ...skipTake(input.page, input.limit) }),
        ctx.db.job.count({ where }),
      ]);
      return { items, total, page: input.page, limit: input.limit };
    },
  }),
);

builder.mutationField("retryJob", (t) =>
  t.prismaField({
    type: "Job",
    description: "Puts a dead job back in its queue with a fresh set of attempts",
    authScopes: { permission: "configure" },
    audit: { action: "job.retry", target: "job", id: (args) => String(args.id) },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const id = String(args.id);
      // revive is scoped to the caller's tenant; the status read after it is the one the message should name.
      const outcome = await ctx.services.jobs.revive(id, ctx.tenantId);
      const job = await ctx.db.job.findUnique({ where: { id } });
      if (!job) throw notFound("Job");
      if (outcome === "superseded") {
        throw new AppError("VALIDATION", "A newer job with the same dedupe key is already queued; it does this job's work");
      }
      if (outcome === "not-dead") throw new AppError("VALIDATION", `Job is ${job.status}, only dead jobs can be retried`);
      return ctx.db.job.findUniqueOrThrow({ ...query, where: { id } });
    },
  }),
);
