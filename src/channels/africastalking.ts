import { z } from "zod";
import type { Config } from "../config.js";
import type { ConfiguredChannel, WebhookRequest } from "./adapter.js";
import { safeEqual } from "./signatures.js";

// What Africa's Talking's SMS and USSD channels share (../shared/providers/africastalking.md). AT signs
// nothing and its callbacks name no account, so a channel is authenticated by a secret of its own: the
// tenant picks a token, saves it with the channel's credentials and registers the callback URL with
// `?token=<token>` in AT's dashboard (our convention, not an AT feature).

export const atToken = z
  .string()
  .regex(/^[A-Za-z0-9_-]{16,128}$/, "a random URL-safe token of 16 to 128 characters, also set as ?token= on the callback URL");

/** The `token` query parameter of the callback URL, or null. */
export function urlToken(req: WebhookRequest): string | null {
  const token = req.query.token;
  return typeof token === "string" && token !== "" ? token : null;
}

/** Whether the callback URL carries the channel's token (timing-safe). */
export function verifyUrlToken(req: WebhookRequest, channel: ConfiguredChannel): boolean {
  const expected = channel.credentials.token;
  return Boolean(expected) && safeEqual(urlToken(req), expected!);
}

const liveApi = "https://api.africastalking.com";
const sandboxApi = "https://api.sandbox.africastalking.com";

/**
 * AT's API for an app. Its test app, username `sandbox`, lives on another host (as AT's SDKs know);
 * a configured AFRICASTALKING_API_URL (a proxy, the tests' fake) is used for every app.
 */
export function africasTalkingApi(config: Pick<Config, "AFRICASTALKING_API_URL">, username: string): string {
  const base = config.AFRICASTALKING_API_URL.replace(/\/$/, "");
  return username === "sandbox" && base === liveApi ? sandboxApi : base;
}
