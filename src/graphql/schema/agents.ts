import { z } from "zod";
import { availabilities, createAgent, updateAgent } from "../../agents/agents.js";
import { passwordLength } from "../../agents/passwords.js";
import { createTeam, deleteTeam, updateTeam } from "../../agents/teams.js";
import { roles } from "../../auth/roles.js";
import type { Prisma } from "../../db/generated/prisma/client.js";
import { notFound } from "../../errors.js";
import { builder } from "../builder.js";
import { type Page, pageArgs, pageOf, pagingInput, skipTake } from "../paging.js";
import { parseInput } from "../validate.js";
import { RoleEnum } from "./api-keys.js";

export const AvailabilityEnum = builder.enumType("Availability", { values: availabilities });

export const Team = builder.prismaObject("Team", {
  description: "Agents grouped for routing: escalations whose conversation has one of its intents go to its members",
  fields: (t) => ({
    id: t.exposeID("id"),
    name: t.exposeString("name"),
    intents: t.exposeStringList("intents"),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
  }),
});

export const Agent = builder.prismaObject("User", {
  name: "Agent",
  description: "A dashboard user: an agent, admin, owner or viewer of the tenant",
  fields: (t) => ({
    id: t.exposeID("id"),
    name: t.exposeString("name"),
    email: t.exposeString("email"),
    role: t.field({ type: RoleEnum, resolve: (u) => u.role as (typeof roles)[number] }),
    availability: t.field({
      type: AvailabilityEnum,
      description: "online agents are given escalations automatically; away and offline ones are not",
      resolve: (u) => u.availability as (typeof availabilities)[number],
    }),
    maxConcurrent: t.exposeInt("maxConcurrent", { description: "At most this many conversations assigned at once" }),
    openConversations: t.relationCount("escalations", {
      where: { status: "assigned" },
      description: "Escalations assigned to the agent and not yet resolved",
    }),
    active: t.boolean({ description: "false once removed", resolve: (u) => u.deactivatedAt === null }),
    teams: t.field({
      type: [Team],
      select: { teams: { select: { team: true } } },
      resolve: (user) => user.teams.map((m) => m.team),
    }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
  }),
});

builder.prismaObjectField("Team", "members", (t) =>
  t.field({
    type: [Agent],
    select: { members: { select: { user: true }, orderBy: { createdAt: "asc" } } },
    resolve: (team) => team.members.map((m) => m.user),
  }),
);

type UserRow = Prisma.UserGetPayload<object>;
const AgentPage = pageOf<UserRow>("AgentPage", Agent);

const email = z.string().trim().toLowerCase().email().max(200);
const password = z.string().min(passwordLength.min).max(passwordLength.max);
const agentFields = {
  name: z.string().trim().min(1).max(100),
  email,
  role: z.enum(roles),
  password,
  availability: z.enum(availabilities),
  maxConcurrent: z.number().int().min(1).max(100),
  teamIds: z.array(z.string()).max(50),
};
const createInput = z.object(agentFields).partial().required({ name: true, email: true });
const updateInput = z
  .object({ ...agentFields, currentPassword: z.string().max(passwordLength.max), active: z.boolean() })
  .partial();

const agentArgs = builder.args((t) => ({
  name: t.string({ required: false }),
  email: t.string({ required: false }),
  role: t.field({ type: RoleEnum, required: false, description: "Defaults to agent" }),
  password: t.string({ required: false, description: `For logging in (${passwordLength.min}+ characters)` }),
  availability: t.field({ type: AvailabilityEnum, required: false, description: "Defaults to offline" }),
  maxConcurrent: t.int({ required: false, description: "Defaults to 5" }),
  teamIds: t.idList({ required: false, description: "Replaces the agent's teams" }),
}));

builder.queryField("agents", (t) =>
  t.field({
    type: AgentPage,
    description: "The tenant's agents, by name",
    authScopes: { permission: "read" },
    args: {
      ...pageArgs,
      role: t.arg({ type: RoleEnum, required: false }),
      availability: t.arg({ type: AvailabilityEnum, required: false }),
      teamId: t.arg.id({ required: false }),
      active: t.arg.boolean({ required: false, description: "Default true: removed agents are left out" }),
    },
    resolve: async (_root, args, ctx): Promise<Page<UserRow>> => {
      const input = parseInput(z.object(pagingInput), args);
      const where: Prisma.UserWhereInput = {
        deactivatedAt: args.active === false ? { not: null } : null,
        ...(args.role ? { role: args.role } : {}),
        ...(args.availability ? { availability: args.availability } : {}),
        ...(args.teamId ? { teams: { some: { teamId: String(args.teamId) } } } : {}),
      };
      const [items, total] = await Promise.all([
        ctx.db.user.findMany({ where, orderBy: [{ name: "asc" }, { id: "asc" }], ...skipTake(input.page, input.limit) }),
        ctx.db.user.count({ where }),
      ]);
      return { items, total, page: input.page, limit: input.limit };
    },
  }),
);

builder.queryField("agent", (t) =>
  t.prismaField({
    type: "User",
    authScopes: { permission: "read" },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const found = await ctx.db.user.findUnique({ ...query, where: { id: String(args.id) } });
      if (!found) throw notFound("Agent");
      return found;
    },
  }),
);

builder.mutationField("createAgent", (t) =>
  t.prismaField({
    type: "User",
    description: "Adds a dashboard user (admins and owners; only an owner makes an owner)",
    authScopes: { permission: "configure" },
    audit: { action: "agent.create", target: "agent", id: (_args, _ctx, agent) => agent?.id },
    args: agentArgs,
    resolve: async (query, _root, args, ctx) => {
      const id = await createAgent(ctx.services, ctx.db, ctx.principal!, parseInput(createInput, args));
      return ctx.db.user.findUniqueOrThrow({ ...query, where: { id } });
    },
  }),
);

builder.mutationField("updateAgent", (t) =>
  t.prismaField({
    type: "User",
    description:
      "Changes an agent. Anyone may change their own name, availability and password (with currentPassword); the rest " +
      "needs an admin or owner, an owner's record an owner. active: false removes the agent. The last owner stays an owner.",
    authScopes: { authenticated: true },
    audit: { action: "agent.update", target: "agent", id: (args) => String(args.id) },
    args: {
      id: t.arg.id({ required: true }),
      ...agentArgs,
      currentPassword: t.arg.string({ required: false }),
      active: t.arg.boolean({ required: false }),
    },
    resolve: async (query, _root, { id, ...args }, ctx) => {
      await updateAgent(ctx.services, ctx.db, ctx.principal!, String(id), parseInput(updateInput, args));
      return ctx.db.user.findUniqueOrThrow({ ...query, where: { id: String(id) } });
    },
  }),
);

const teamInput = z.object({
  name: z.string().trim().min(1).max(100),
  intents: z.array(z.string().trim().min(1).max(100)).max(100),
  memberIds: z.array(z.string()).max(500),
});
const teamArgs = builder.args((t) => ({
  intents: t.stringList({ required: false, description: "Intents whose escalations go to this team" }),
  memberIds: t.idList({ required: false, description: "Replaces the team's members" }),
}));

builder.queryField("teams", (t) =>
  t.prismaField({
    type: ["Team"],
    authScopes: { permission: "read" },
    resolve: (query, _root, _args, ctx) => ctx.db.team.findMany({ ...query, orderBy: { name: "asc" } }),
  }),
);

builder.mutationField("createTeam", (t) =>
  t.prismaField({
    type: "Team",
    authScopes: { permission: "configure" },
    audit: { action: "team.create", target: "team", id: (_args, _ctx, team) => team?.id },
    args: { name: t.arg.string({ required: true }), ...teamArgs },
    resolve: async (query, _root, args, ctx) => {
      const id = await createTeam(ctx.db, ctx.tenantId, parseInput(teamInput.partial().required({ name: true }), args));
      return ctx.db.team.findUniqueOrThrow({ ...query, where: { id } });
    },
  }),
);

builder.mutationField("updateTeam", (t) =>
  t.prismaField({
    type: "Team",
    authScopes: { permission: "configure" },
    audit: { action: "team.update", target: "team", id: (args) => String(args.id) },
    args: { id: t.arg.id({ required: true }), name: t.arg.string({ required: false }), ...teamArgs },
    resolve: async (query, _root, { id, ...args }, ctx) => {
      await updateTeam(ctx.db, ctx.tenantId, String(id), parseInput(teamInput.partial(), args));
      return ctx.db.team.findUniqueOrThrow({ ...query, where: { id: String(id) } });
    },
  }),
);

const DeletedTeam = builder.objectRef<{ deleted: string }>("DeletedTeam").implement({
  fields: (t) => ({ deleted: t.exposeID("deleted") }),
});

builder.mutationField("deleteTeam", (t) =>
  t.field({
    type: DeletedTeam,
    description: "Removes a team; its escalations stay, for any agent",
    authScopes: { permission: "configure" },
    audit: { action: "team.delete", target: "team", id: (args) => String(args.id) },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      await deleteTeam(ctx.db, String(args.id));
      return { deleted: String(args.id) };
    },
  }),
);
