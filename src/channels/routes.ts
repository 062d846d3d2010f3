import type { Response } from "express";
import type { RateLimits } from "../http/rate-limit.js";
import type { RestRoute } from "../rest/route.js";
import type { Services } from "../services.js";
import type { ChannelType, WebhookEndpoint, WebhookRequest } from "./adapter.js";
import { botmsgWebhook } from "./botmsg.js";
import { chatappWebhook } from "./chatapp.js";
import { answerMetaChallenge } from "./meta.js";
import { answerMicroblogCrc, microblogWebhook } from "./microblog.js";
import { smsWebhookFor } from "./sms.js";
import { socialWebhook } from "./social.js";
import { WebhookSources } from "./source-limit.js";
import { answerSynchronously, type SynchronousEndpoint } from "./synchronous.js";
import { answerSlackHandshake, teamchatWebhook } from "./teamchat.js";
import { ussdWebhook } from "./ussd.js";
import { voiceInboundPath, voiceStatusPath, voiceStatusWebhook, voiceWebhook } from "./voice.js";
import { acceptWebhook, acknowledge, keepRawBody, webhookRequest } from "./webhook.js";

const tag = "Channel webhooks";

/** A provider check posted to the events path (Slack's URL verification): true when it answered. */
type Handshake = (services: Services, req: WebhookRequest, res: Response) => Promise<boolean>;

/**
 * An asynchronous provider webhook: verified, stored as jobs, acknowledged at once. Where providers
 * share a path (SMS), `endpoint` picks the one that sent the request.
 */
function asyncWebhook(
  services: Services,
  limits: RateLimits,
  path: string,
  endpoint: WebhookEndpoint | ((req: WebhookRequest) => WebhookEndpoint),
  summary: string,
  handshake?: Handshake,
): RestRoute {
  return {
    method: "post",
    path,
    tag,
    auth: "self",
    summary,
    before: [keepRawBody],
    response: { status: 200, description: "Acknowledged: the messages are stored and will be answered" },
    errors: [401, 413, 422, 429],
    async handle(req, res) {
      const request = webhookRequest(services, req);
      if (handshake && (await handshake(services, request, res))) return;
      const sender = typeof endpoint === "function" ? endpoint(request) : endpoint;
      await acceptWebhook(services, limits, sender, request, res);
      acknowledge(res, sender, request);
    },
  };
}

/** A synchronous provider webhook (USSD, voice): verified, and answered through the pipeline within the request. */
function syncWebhook(
  services: Services,
  limits: RateLimits,
  path: string,
  endpoint: SynchronousEndpoint,
  summary: string,
): RestRoute {
  return {
    method: "post",
    path,
    tag,
    auth: "self",
    summary,
    before: [keepRawBody],
    response: { status: 200, description: `The provider's next instructions (${endpoint.contentType})` },
    errors: [401, 413, 429],
    async handle(req, res) {
      const body = await answerSynchronously(services, limits, endpoint, webhookRequest(services, req), res);
      res.status(200).type(endpoint.contentType).send(body);
    },
  };
}

function metaChallenge(services: Services, path: string, types: ChannelType[]): RestRoute {
  return {
    method: "get",
    path,
    tag,
    auth: "self",
    summary: "Meta's subscription check: answers hub.challenge when hub.verify_token is a configured channel's",
    response: { status: 200, description: "The hub.challenge value, as text" },
    errors: [403],
    async handle(req, res) {
      await answerMetaChallenge(services, types, req, res);
    },
  };
}

/** The inbound paths of the spec, one or two per provider, each limiting the failures of a client address. */
export function channelWebhookRoutes(services: Services, limits: RateLimits): RestRoute[] {
  const { WEBHOOK_FAILURE_MAX: max, WEBHOOK_FAILURE_WINDOW_S: windowS } = services.config;
  const sources = new WebhookSources(limits, { max, windowS });
  return webhookRoutes(services, limits).map((route) => sources.guard(route));
}

function webhookRoutes(services: Services, limits: RateLimits): RestRoute[] {
  return [
    metaChallenge(services, "/api/channels/chatapp", ["chatapp"]),
    asyncWebhook(
      services,
      limits,
      "/api/channels/chatapp",
      chatappWebhook,
      "Chat-app (WhatsApp Cloud API) message events, X-Hub-Signature-256",
    ),
    metaChallenge(services, "/api/v1/channels/social/webhook", ["messenger", "instagram"]),
    asyncWebhook(
      services,
      limits,
      "/api/v1/channels/social/webhook",
      socialWebhook,
      "Page messaging and photo-sharing DM events (object page or instagram), X-Hub-Signature-256",
    ),
    asyncWebhook(
      services,
      limits,
      "/api/channels/sms",
      smsWebhookFor,
      "Inbound SMS: Twilio (X-Twilio-Signature, routed by To) or Africa's Talking (?token= of the channel)",
    ),
    asyncWebhook(
      services,
      limits,
      "/api/v1/channels/botmsg/webhook",
      botmsgWebhook,
      "Bot-messaging (Telegram) updates, routed by the channel's X-Telegram-Bot-Api-Secret-Token",
    ),
    {
      method: "get",
      path: "/api/channels/microblog",
      tag,
      auth: "self",
      summary: "X's CRC check: crc_token signed with the app's consumer secret (?account=<user id> picks the app)",
      response: { status: 200, description: '`{"response_token":"sha256=<base64>"}`' },
      errors: [403],
      async handle(req, res) {
        await answerMicroblogCrc(services, req, res);
      },
    },
    asyncWebhook(
      services,
      limits,
      "/api/channels/microblog",
      microblogWebhook,
      "Short-post social (X Account Activity) direct messages, x-twitter-webhooks-signature, routed by for_user_id",
    ),
    asyncWebhook(
      services,
      limits,
      "/api/v1/channels/teamchat/webhook",
      teamchatWebhook,
      "Team chat (Slack Events API): url_verification, X-Slack-Signature within 5 minutes, routed by team_id",
      answerSlackHandshake,
    ),
    syncWebhook(
      services,
      limits,
      "/api/channels/ussd",
      ussdWebhook,
      "Africa's Talking USSD session hops (routed by serviceCode, ?token= of the channel): CON/END screens",
    ),
    syncWebhook(
      services,
      limits,
      voiceInboundPath,
      voiceWebhook,
      "Twilio Voice call steps (X-Twilio-Signature, routed by To): TwiML",
    ),
    syncWebhook(
      services,
      limits,
      voiceStatusPath,
      voiceStatusWebhook,
      "Twilio Voice call status callbacks: an ended call closes its conversation",
    ),
  ];
}
