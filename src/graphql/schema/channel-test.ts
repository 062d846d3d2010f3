import { z } from "zod";
import { sendTestMessage } from "../../channels/test-message.js";
import { builder } from "../builder.js";
import { parseInput } from "../validate.js";
import { channelIdByRef } from "./channels.js";
import { maxMessageLength } from "./chat.js";

const TestMessage = builder.objectRef<{ providerMessageId: string | null }>("ChannelTestMessage").implement({
  fields: (t) => ({
    providerMessageId: t.exposeString("providerMessageId", { nullable: true, description: "The provider's id for the message" }),
  }),
});

const input = z.object({
  ref: z.string().min(1).max(100),
  to: z.string().trim().min(1, "must not be empty").max(200),
  text: z.string().trim().min(1, "must not be empty").max(maxMessageLength).default("This is a test message from Parley."),
});

builder.mutationField("sendChannelTestMessage", (t) =>
  t.field({
    type: TestMessage,
    description:
      "Sends a message to `to` (the provider's address: a phone number without +, a user or chat id) through the channel's " +
      "provider with its saved credentials, to check them; stored nowhere. Not for USSD, voice or the widget, which only answer",
    authScopes: { permission: "configure" },
    audit: { action: "channel.test_message", target: "channel", id: (args, ctx) => channelIdByRef(ctx, args.ref) },
    args: {
      ref: t.arg.string({ required: true, description: "The channel's id, or its type when the tenant has one of it" }),
      to: t.arg.string({ required: true }),
      text: t.arg.string({ required: false }),
    },
    resolve: (_root, args, ctx) =>
      sendTestMessage(ctx.services, ctx.db, parseInput(input, { ...args, text: args.text ?? undefined })),
  }),
);
