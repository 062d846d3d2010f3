import type { Request, Response } from "express";
import { z } from "zod";
import { AppError } from "../errors.js";
import type { Services } from "../services.js";
import type { ChannelType, ConfiguredChannel, WebhookRequest } from "./adapter.js";
import { headerOf, singleQuery } from "./payload.js";
import { safeEqual, verifyMetaSignature } from "./signatures.js";
import { channelByToken } from "./store.js";

/** What Meta's webhooks (chat app, page messaging, photo-sharing) have in common: a verify token and an app secret. */
export const metaWebhookCredentials = {
  verify_token: z.string().min(6, "choose a verify token of at least 6 characters").max(200),
  app_secret: z.string().min(8).max(200),
};

export function verifyMetaRequest(req: WebhookRequest, channel: ConfiguredChannel): boolean {
  const secret = channel.credentials.app_secret;
  return Boolean(secret) && verifyMetaSignature(req.rawBody, headerOf(req, "x-hub-signature-256"), secret!);
}

/**
 * Meta's subscription handshake: `hub.mode=subscribe` with the verify token a tenant typed in the app
 * dashboard is answered with `hub.challenge` as the whole body; anything else is 403.
 */
export async function answerMetaChallenge(services: Services, types: ChannelType[], req: Request, res: Response): Promise<void> {
  const q = singleQuery(req.query);
  // PHP-style proxies rename the dotted parameters.
  const mode = q["hub.mode"] ?? q.hub_mode;
  const token = q["hub.verify_token"] ?? q.hub_verify_token;
  const challenge = q["hub.challenge"] ?? q.hub_challenge;
  if (mode !== "subscribe" || !token || challenge === undefined) {
    throw new AppError("FORBIDDEN", "Not a valid subscription request");
  }
  const channel = await channelByToken(services, types, token);
  const expected = channel?.credentials.verify_token;
  if (!expected || !safeEqual(token, expected)) {
    throw new AppError("FORBIDDEN", "The verify token does not match a configured channel");
  }
  res.status(200).type("text/plain").send(challenge);
}

/** The Graph API base every Meta send call goes to (`{messaging_api_url}` of the spec). */
export function graphUrl(services: { config: { MESSAGING_API_URL: string } }, path: string): string {
  return `${services.config.MESSAGING_API_URL.replace(/\/$/, "")}/${path}`;
}
