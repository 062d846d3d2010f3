import type { ChannelName } from "../channels/names.js";

/** A customer message as every channel adapter hands it to the pipeline. */
export interface InboundMessage {
  tenantId: string;
  channel: ChannelName;
  /** The tenant's channel configuration the message came through, when there is one. */
  channelId?: string | null;
  customer: {
    /** The channel's sender id (phone without +, page-scoped id, chat id…); null for anonymous API calls. */
    id: string | null;
    /** E.164 with a leading + on phone channels. */
    phone?: string | null;
    name?: string | null;
  };
  text: string;
  /** What the customer sent when it is not text (`image`, `sticker`, `voice`…): answered without the AI. */
  kind?: string;
  /** The provider's message id, prefixed with the channel (`chatapp:wamid…`): a redelivery is recognised by it. */
  providerMessageId?: string | null;
  /** An explicit conversation (API and widget callers continue one by id). */
  conversationId?: string | null;
  /** The text is a question the customer chose from those a decline listed (a button of ours): analytics count it. */
  choice?: boolean;
}
