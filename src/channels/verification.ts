import type { Prisma } from "../db/generated/prisma/client.js";
import type { ChannelSettings } from "./adapter.js";
import { findAdapter } from "./registry.js";

// What a channel's owner sees of its claim on a provider account (see claims.ts).

type ChannelRow = Prisma.ChannelGetPayload<object>;

/** Whether inbound events find this channel by a secret of its own (a token) rather than by the provider account. */
export function routedByToken(type: string, settings: ChannelSettings): boolean {
  return findAdapter(type)?.routedByToken?.(settings) ?? false;
}

export type VerificationStatus = "verified" | "pending" | "not_required";

/** Where the channel's claim on its account stands, and what its owner does about it, as the dashboard shows it. */
export function verificationOf(row: Pick<ChannelRow, "type" | "settings" | "routingKey" | "verifiedRoutingKey">): {
  status: VerificationStatus;
  instructions: string;
} {
  if (routedByToken(row.type, (row.settings ?? {}) as ChannelSettings)) {
    return {
      status: "not_required",
      instructions:
        "Inbound requests find this channel by a secret of its own (widget tokens, Telegram's secret token, the ?token= of the callback URL), not by the provider account: there is nothing to prove.",
    };
  }
  if (row.verifiedRoutingKey === row.routingKey) {
    return {
      status: "verified",
      instructions: "A delivery signed with this channel's credentials proved the account: its messages are routed here.",
    };
  }
  return {
    status: "pending",
    instructions:
      "Register webhook_url with the provider, then send the account one message (or the provider's test event). The first delivery signed with this channel's credentials proves the account and activates the channel; no delivery that these credentials do not verify is ever routed here.",
  };
}
