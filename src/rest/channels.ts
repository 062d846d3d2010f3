import { z } from "zod";
import type { Services } from "../services.js";
import { runOperation } from "./execute.js";
import {
  type ChannelFieldsFragment,
  DeleteChannelDocument,
  GetChannelDocument,
  ListChannelsDocument,
  ListVoicesDocument,
  SaveChannelDocument,
  SaveVoiceDocument,
  type VoiceFieldsFragment,
} from "./generated.js";
import { objectBody, Reply, type RestRoute } from "./route.js";

const tag = "Channels and voices";

function channelRecord(c: ChannelFieldsFragment) {
  return {
    id: c.id,
    type: c.type,
    name: c.name,
    enabled: c.enabled,
    routing_key: c.routingKey,
    credentials: c.credentials,
    settings: c.settings,
    webhook_url: c.webhookUrl,
    verification: c.verification,
    created_at: c.createdAt,
    updated_at: c.updatedAt,
  };
}

const ChannelRecord = z.object({
  id: z.string(),
  type: z.string(),
  name: z.string(),
  enabled: z.boolean(),
  routing_key: z.string(),
  credentials: z.record(z.string(), z.string()).describe("identifiers in clear, secrets masked"),
  settings: z.record(z.string(), z.unknown()),
  webhook_url: z.string().nullable(),
  verification: z
    .object({ status: z.enum(["verified", "pending", "not_required"]), instructions: z.string() })
    .describe(
      "the channel's claim on its provider account: pending until a delivery signed with its credentials proves it (that delivery is the first routed here)",
    ),
  created_at: z.string(),
  updated_at: z.string(),
});

const ChannelBody = z.object({
  name: z.string().optional(),
  enabled: z.boolean().optional(),
  credentials: z
    .record(z.string(), z.string().nullable())
    .optional()
    .describe("merged into the stored credentials; null removes a field"),
  settings: z
    .record(z.string(), z.unknown())
    .optional()
    .describe(
      "greeting, maxReplyChars, provider (sms: twilio | africastalking); widget: allowed_origins, title, primary_color, background_color, text_color, position, streaming, …",
    ),
});

function voiceRecord(v: VoiceFieldsFragment) {
  return {
    id: v.id,
    name: v.name,
    language: v.language,
    speaking_rate: v.speakingRate,
    greeting: v.greeting,
    selected: v.selected,
    created_at: v.createdAt,
  };
}

const VoiceRecord = z.object({
  id: z.string(),
  name: z.string(),
  language: z.string(),
  speaking_rate: z.number(),
  greeting: z.string().nullable(),
  selected: z.boolean(),
  created_at: z.string(),
});

export function channelRoutes(services: Services): RestRoute[] {
  return [
    {
      method: "get",
      path: "/api/tenant/channels",
      tag,
      summary: "The tenant's channels, with secrets masked",
      response: { status: 200, description: "The channels", schema: z.object({ channels: z.array(ChannelRecord) }) },
      errors: [401, 403, 429],
      async handle(req) {
        const { channels } = await runOperation(services, req, ListChannelsDocument, {});
        return { channels: channels.map(channelRecord) };
      },
    },
    {
      method: "get",
      path: "/api/tenant/channels/:channelId",
      tag,
      summary: "One channel, by id or by type (when the tenant has one of that type)",
      response: { status: 200, description: "The channel", schema: ChannelRecord },
      errors: [401, 403, 404, 422, 429],
      async handle(req) {
        const { channel } = await runOperation(services, req, GetChannelDocument, { ref: String(req.params.channelId) });
        return channelRecord(channel);
      },
    },
    {
      method: "put",
      path: "/api/tenant/channels/:channelId",
      tag,
      summary:
        "Configure a channel: by id, or by type (widget, chatapp, messenger, instagram, sms, ussd, voice, botmsg, microblog, teamchat), created on first PUT",
      body: ChannelBody,
      response: { status: 200, description: "The channel as saved", schema: ChannelRecord },
      alsoReplies: [{ status: 201, description: "The channel was created" }],
      errors: [401, 403, 404, 422, 429],
      async handle(req) {
        // No body at all changes nothing, which is a valid request.
        const body = objectBody(req.body ?? {});
        const { saveChannel } = await runOperation(services, req, SaveChannelDocument, {
          ref: String(req.params.channelId),
          name: body.name as string,
          enabled: body.enabled as boolean,
          credentials: body.credentials,
          settings: body.settings,
        });
        return new Reply(saveChannel.created ? 201 : 200, channelRecord(saveChannel.channel));
      },
    },
    {
      method: "delete",
      path: "/api/tenant/channels/:channelId",
      tag,
      summary: "Remove a channel (by id)",
      response: { status: 200, description: "Removed", schema: z.object({ deleted: z.string() }) },
      errors: [401, 403, 404, 429],
      async handle(req) {
        const { deleteChannel } = await runOperation(services, req, DeleteChannelDocument, { id: String(req.params.channelId) });
        return { deleted: deleteChannel };
      },
    },
    {
      method: "get",
      path: "/api/tenant/voices",
      tag,
      summary: "The tenant's text-to-speech voices; the voice channel speaks with the selected one",
      response: { status: 200, description: "The voices", schema: z.object({ voices: z.array(VoiceRecord) }) },
      errors: [401, 403, 429],
      async handle(req) {
        const { voices } = await runOperation(services, req, ListVoicesDocument, {});
        return { voices: voices.map(voiceRecord) };
      },
    },
    {
      method: "post",
      path: "/api/tenant/voices",
      tag,
      summary: "Add a voice ({name, language, speaking_rate?, greeting?, selected?}), or change one with its id",
      body: z.object({
        id: z.string().optional(),
        name: z.string().optional().describe("provider voice name, e.g. Polly.Amy"),
        language: z.string().optional().describe("BCP 47, e.g. en-GB"),
        speaking_rate: z.number().optional().describe("0.5 to 2, default 1"),
        greeting: z.string().optional(),
        selected: z.boolean().optional(),
      }),
      response: { status: 201, description: "The voice as saved", schema: VoiceRecord },
      alsoReplies: [{ status: 200, description: "An existing voice was changed" }],
      errors: [401, 403, 404, 422, 429],
      async handle(req) {
        const body = objectBody(req.body ?? {});
        const { saveVoice } = await runOperation(services, req, SaveVoiceDocument, {
          id: body.id as string,
          name: body.name as string,
          language: body.language as string,
          speakingRate: body.speaking_rate as number,
          greeting: body.greeting as string,
          selected: body.selected as boolean,
        });
        return new Reply(body.id ? 200 : 201, voiceRecord(saveVoice));
      },
    },
  ];
}
