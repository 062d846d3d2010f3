import type { IncomingHttpHeaders } from "node:http";
import type { z } from "zod";
import type { Config } from "../config.js";
import type { ChannelName } from "./names.js";

/** The channel types a tenant configures (every channel but the plain API). */
export type ChannelType = Exclude<ChannelName, "api">;

/** Per-channel settings a tenant may set besides credentials. */
export interface ChannelSettings {
  /** Sent when a customer starts a conversation on channels that greet (USSD menu, voice call). */
  greeting?: string;
  /** A tighter reply cap than the channel's own, in characters. */
  maxReplyChars?: number;
  /** Which provider serves the channel, where several can (sms: twilio or africastalking). */
  provider?: string;
  [key: string]: unknown;
}

/** A tenant's channel with its credentials decrypted: only ever held in memory. */
export interface ConfiguredChannel<C = Record<string, string>> {
  id: string;
  tenantId: string;
  type: ChannelType;
  routingKey: string;
  enabled: boolean;
  credentials: C;
  settings: ChannelSettings;
}

/** A webhook request as the provider sent it: signatures are computed over `rawBody` and `url`. */
export interface WebhookRequest {
  method: string;
  /** The URL the provider called, as it sees it (Twilio signs it). */
  url: string;
  query: Record<string, string | undefined>;
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
}

/** One customer message found in a webhook payload. */
export interface ChannelEvent {
  type: ChannelType;
  /** The tenant's key in the payload (phone number id, page id, team id…); absent where a token routes instead. */
  routingKey?: string;
  /** The provider's id for this event: a redelivery carries the same one. */
  providerMessageId: string;
  customer: {
    /** Where replies go: the sender id, or for threaded channels `<channel>:<thread>`. */
    id: string;
    phone?: string | null;
    name?: string | null;
  };
  /** The text, or null for a message the service cannot read (image, sticker, voice note…). */
  text: string | null;
  /** What the customer sent: `text`, `image`, `sticker`… */
  kind: string;
  /** The text is the question of a button of ours under a decline (src/channels/choices.ts) that the customer pressed. */
  choice?: boolean;
}

/** A provider's inbound endpoint for asynchronous channels: parse, then route and verify per channel. */
export interface WebhookEndpoint {
  /** The channel types whose events arrive here (the social webhook serves two). */
  types: ChannelType[];
  /**
   * The customer messages in the payload, without echoes, bot messages and status events. Throws a
   * VALIDATION AppError for a body that is not the provider's format.
   */
  parse(req: WebhookRequest): ChannelEvent[];
  /**
   * For providers that sign nothing and route by a token alone (Telegram's secret header, Africa's
   * Talking's URL token): the token of this request, or null when it carries none.
   */
  tokenOf?(req: WebhookRequest): string | null;
  /** Whether the request was signed with this channel's secret (not called for token-routed endpoints). */
  verify?(req: WebhookRequest, channel: ConfiguredChannel): boolean;
  /**
   * The acknowledgement the provider expects (default: 200 `{"ok":true}`); a function where it depends on the
   * request (Telegram takes a method call in the webhook's answer).
   */
  ack?: Acknowledgement | ((req: WebhookRequest) => Acknowledgement);
}

export interface Acknowledgement {
  contentType: string;
  body: string;
}

export interface SendContext<C> {
  channel: ConfiguredChannel<C>;
  config: Config;
  signal: AbortSignal;
}

export interface OutboundMessage {
  /** The conversation's customer id: the address the channel replies to. */
  to: string;
  text: string;
  /** The questions a decline lists by number (src/ai/local.ts), for a channel that can offer them as buttons. */
  choices?: string[];
}

/** Everything that makes a channel type: its credentials, its reply format and how replies leave. */
export interface ChannelAdapter<C = Record<string, string>> {
  type: ChannelType;
  /** Validates a tenant's credentials for this channel (422 with field details otherwise). */
  credentials: z.ZodType<C>;
  /** Where the settings choose among providers (sms), the chosen one's credentials; `credentials` accepts any. */
  credentialsFor?(settings: ChannelSettings): z.ZodType<C>;
  /** Validates and normalises the channel's own settings beyond the common ones (422 with field details otherwise). */
  settings?: z.ZodType<ChannelSettings>;
  /** Credential fields that are secrets: write-only, masked on every read. */
  secretFields: readonly string[];
  /** The provider's identifier that routes inbound events to this tenant. */
  routingKeyOf(credentials: C, settings: ChannelSettings): string;
  /**
   * Whether inbound requests find the channel by a secret of its own (a token) rather than by its provider
   * account: such a channel has no account claim to prove (see claims.ts).
   */
  routedByToken?(settings: ChannelSettings): boolean;
  /** The token a provider sends alone, when the channel authenticates that way (see WebhookEndpoint.tokenOf). */
  webhookTokenOf?(credentials: C): string | null;
  /** The reply as the channel shows it: formatting converted, cut cleanly to the channel's limits. */
  format(text: string, settings: ChannelSettings): string;
  /** Sends a reply through the provider; returns the provider's message id when it gives one. */
  send?(ctx: SendContext<C>, message: OutboundMessage): Promise<{ providerMessageId?: string | null }>;
}
