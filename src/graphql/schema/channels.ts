import type { ChannelType } from "../../channels/adapter.js";
import { getChannel, maskedCredentials, saveChannel, webhookUrl } from "../../channels/config.js";
import { type VerificationStatus, verificationOf } from "../../channels/verification.js";
import { notFound } from "../../errors.js";
import { builder } from "../builder.js";
import type { GraphQLContext } from "../context.js";
import { ChannelEnum } from "./conversations.js";

const statuses: readonly VerificationStatus[] = ["verified", "pending", "not_required"];

const VerificationStatusEnum = builder.enumType("ChannelVerificationStatus", {
  description:
    "verified: a signed delivery proved the provider account; pending: only a delivery signed with the channel's credentials, which proves it, is routed here; not_required: a secret of the channel's own routes its requests",
  values: statuses,
});

const ChannelVerification = builder
  .objectRef<{ status: VerificationStatus; instructions: string }>("ChannelVerification")
  .implement({
    description: "Where the channel's claim on its provider account stands",
    fields: (t) => ({
      status: t.field({ type: VerificationStatusEnum, resolve: (v) => v.status }),
      instructions: t.exposeString("instructions", { description: "What the owner does to complete it" }),
    }),
  });

export const ChannelConfig = builder.prismaObject("Channel", {
  name: "ChannelConfig",
  description: "A tenant's channel: its provider account, credentials (secrets masked) and reply settings",
  fields: (t) => ({
    id: t.exposeID("id"),
    type: t.field({ type: ChannelEnum, resolve: (c) => c.type as ChannelType }),
    name: t.exposeString("name"),
    enabled: t.exposeBoolean("enabled"),
    routingKey: t.exposeString("routingKey", {
      description: "The provider's identifier that routes inbound events to this channel (phone number id, page id…)",
    }),
    credentials: t.field({
      type: "JSON",
      description: "Identifiers in clear, secrets masked: secrets are write-only",
      resolve: (c, _args, ctx) => maskedCredentials(ctx.services, c),
    }),
    settings: t.expose("settings", { type: "JSON" }),
    webhookUrl: t.string({
      nullable: true,
      description: "The address to paste in the provider's console ({token}: the channel's token, for Africa's Talking)",
      resolve: (c, _args, ctx) => webhookUrl(ctx.services, c),
    }),
    verification: t.field({ type: ChannelVerification, resolve: (c) => verificationOf(c) }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
  }),
});

builder.queryField("channels", (t) =>
  t.prismaField({
    type: ["Channel"],
    description: "The tenant's configured channels",
    authScopes: { permission: "read" },
    resolve: (query, _root, _args, ctx) =>
      ctx.db.channel.findMany({ ...query, orderBy: [{ type: "asc" }, { createdAt: "asc" }] }),
  }),
);

builder.queryField("channel", (t) =>
  t.prismaField({
    type: "Channel",
    authScopes: { permission: "read" },
    args: { ref: t.arg.string({ required: true, description: "The channel's id, or its type when the tenant has one of it" }) },
    resolve: (_query, _root, args, ctx) => getChannel(ctx.db, args.ref),
  }),
);

const SavedChannel = builder.objectRef<{ id: string; created: boolean }>("SavedChannel").implement({
  fields: (t) => ({
    created: t.exposeBoolean("created"),
    channel: t.prismaField({
      type: "Channel",
      resolve: (query, saved, _args, ctx) => ctx.db.channel.findUniqueOrThrow({ ...query, where: { id: saved.id } }),
    }),
  }),
});

/** A channel type names the tenant's one channel of that type, if it has one yet. */
export async function channelIdByRef(ctx: GraphQLContext, ref: string): Promise<string | undefined> {
  return (await ctx.db.channel.findFirst({ where: ref.startsWith("chn_") ? { id: ref } : { type: ref } }))?.id;
}

builder.mutationField("saveChannel", (t) =>
  t.field({
    type: SavedChannel,
    description:
      "Creates or changes a channel. `ref` is a channel id, or a channel type (created on first save). Credentials merge into the stored ones; null removes a field",
    authScopes: { permission: "configure" },
    audit: {
      action: "channel.save",
      target: "channel",
      id: async (args, ctx, saved) => saved?.id ?? (await channelIdByRef(ctx, args.ref)),
    },
    args: {
      ref: t.arg.string({ required: true }),
      name: t.arg.string({ required: false }),
      enabled: t.arg.boolean({ required: false }),
      credentials: t.arg({ type: "JSON", required: false }),
      settings: t.arg({ type: "JSON", required: false }),
    },
    resolve: async (_root, args, ctx) => {
      const { ref, ...input } = args;
      const saved = await saveChannel(ctx, ref, input);
      return { id: saved.row.id, created: saved.created };
    },
  }),
);

builder.mutationField("deleteChannel", (t) =>
  t.field({
    type: "ID",
    description: "Removes a channel; its conversations stay, without a channel to reply through",
    authScopes: { permission: "configure" },
    audit: { action: "channel.delete", target: "channel", id: (args) => String(args.id) },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const id = String(args.id);
      const { count } = await ctx.db.channel.deleteMany({ where: { id } });
      if (!count) throw notFound("Channel");
      ctx.services.tenants.changed(ctx.tenantId);
      return id;
    },
  }),
);
