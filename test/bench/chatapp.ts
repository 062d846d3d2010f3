import { createHmac } from "node:crypto";
import type autocannon from "autocannon";
import { chatappMessageEvent } from "../helpers/channels.js";

/** The chat-app channel the webhook benchmarks post to: one account of one tenant, signed with its app secret. */
const appSecret = "bench_app_secret";
const phoneNumberId = "200000000000002";

const channelCredentials = {
  phone_number_id: phoneNumberId,
  access_token: "EAAG-bench-token-000001",
  verify_token: "bench-verify",
  app_secret: appSecret,
};

/** Sets up the tenant's chat-app channel through the service at `url`. */
export async function configureChatapp(url: string, apiKey: string): Promise<void> {
  const res = await fetch(`${url}/api/tenant/channels/chatapp`, {
    method: "PUT",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ credentials: channelCredentials }),
  });
  if (res.status !== 201) throw new Error(`configuring the channel failed: ${await res.text()}`);
}

/** A signed chat-app message event, as the provider sends it, from its own customer. */
export function signedEvent(n: number): { body: string; signature: string; from: string } {
  const from = `1555${String(n).padStart(7, "0")}`;
  const body = chatappMessageEvent(
    phoneNumberId,
    { from, id: `wamid.BENCH${n}`, timestamp: "1700000000", type: "text", text: { body: "What are your opening hours?" } },
    "Bench",
  );
  return { body, signature: `sha256=${createHmac("sha256", appSecret).update(body).digest("hex")}`, from };
}

/** Posts a signed event and returns how long its acknowledgement took (ms); throws on anything but 200. */
export async function postEvent(url: string, n: number): Promise<number> {
  const event = signedEvent(n);
  const started = performance.now();
  const res = await fetch(`${url}/api/channels/chatapp`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-hub-signature-256": event.signature },
    body: event.body,
  });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`the webhook was answered ${res.status}`);
  return performance.now() - started;
}

/**
 * autocannon's request for signed events numbered on from `first`, each from a customer of its own: `postedAt`
 * gets each customer's time of posting, which the reply at the fake provider is timed from.
 */
export function eventRequest(postedAt: Map<string, number>, first = 1): autocannon.Request {
  let n = first - 1;
  return {
    method: "POST",
    path: "/api/channels/chatapp",
    setupRequest: (req) => {
      const event = signedEvent(++n);
      postedAt.set(event.from, Date.now());
      return {
        ...req,
        headers: { "content-type": "application/json", "x-hub-signature-256": event.signature },
        body: event.body,
      };
    },
  };
}
