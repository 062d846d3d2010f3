import { createHash, randomBytes } from "node:crypto";
import { z } from "zod";
import type { ChannelAdapter, ChannelSettings } from "./adapter.js";
import { formatForChannel } from "./format.js";

// The embeddable web widget (issue 6, DESIGN §3 "Widget"). Its replies leave through no provider: the
// widget reads them in its HTTP answers and its live feed (src/rest/widget.ts), so it has no `send`.

export const widgetPositions = ["bottom-right", "bottom-left", "top-right", "top-left"] as const;
export type WidgetPosition = (typeof widgetPositions)[number];

const credentials = z.object({
  // A friendly default: a channel saved without a secret gets a strong one. A tenant that mints tokens on its own
  // server chooses its own and sends it here, since a stored secret is never shown again.
  secret: z
    .string()
    .min(32, "at least 32 characters")
    .max(256)
    .default(() => randomBytes(32).toString("base64url")),
});
type Credentials = z.infer<typeof credentials>;

/**
 * An origin as browsers send it in the Origin header (scheme, host and port; lower case, default port dropped), or
 * null when the value is not one: a path, query or fragment means a page address was pasted, not an origin.
 */
export function normaliseOrigin(value: string): string | null {
  try {
    const url = new URL(value.trim());
    const bare = url.pathname === "/" && !url.search && !url.hash && !url.username && !url.password;
    return bare && (url.protocol === "http:" || url.protocol === "https:") ? url.origin : null;
  } catch {
    return null;
  }
}

const origin = z.string().transform((value, ctx) => {
  const normalised = normaliseOrigin(value);
  if (normalised) return normalised;
  ctx.addIssue({ code: "custom", message: "an origin such as https://www.example-bank.com (no path)" });
  return z.NEVER;
});

const colour = z.string().regex(/^#[0-9a-fA-F]{6}$/, "a colour as #rrggbb");

const settings = z.looseObject({
  allowed_origins: z.array(origin).max(100).optional(),
  title: z.string().trim().min(1).max(80).optional(),
  primary_color: colour.optional(),
  background_color: colour.optional(),
  text_color: colour.optional(),
  position: z.enum(widgetPositions).optional(),
  streaming: z.boolean().optional(),
});

export const widget: ChannelAdapter<Credentials> = {
  type: "widget",
  credentials,
  settings,
  secretFields: ["secret"],
  // Tokens name their channel, so nothing routes by this key; a fingerprint of the secret shows
  // in the dashboard when the secret was rotated.
  routingKeyOf: (c) => createHash("sha256").update(c.secret).digest("hex").slice(0, 24),
  routedByToken: () => true,
  format: (text, s) => formatForChannel(text, { plainText: false, maxChars: 4000 }, s),
};

/** What the widget script shows: the channel's look and behaviour, with the defaults filled in. */
export interface WidgetConfig {
  title: string;
  greeting: string | null;
  position: WidgetPosition;
  streaming: boolean;
  colors: { primary: string; background: string; text: string };
}

export function widgetConfig(s: ChannelSettings): WidgetConfig {
  const chosen = s as z.infer<typeof settings> & ChannelSettings;
  return {
    title: chosen.title ?? "Chat with us",
    greeting: chosen.greeting ?? null,
    position: chosen.position ?? "bottom-right",
    streaming: chosen.streaming ?? true,
    colors: {
      primary: chosen.primary_color ?? "#1f4fd1",
      background: chosen.background_color ?? "#ffffff",
      text: chosen.text_color ?? "#1d2330",
    },
  };
}

/** The origins whose pages may run this channel's widget. */
export function allowedOrigins(s: ChannelSettings): string[] {
  return Array.isArray(s.allowed_origins) ? (s.allowed_origins as string[]) : [];
}

/** The tag a tenant pastes into its pages (SPEC "Authentication" 4). */
export function widgetSnippet(baseUrl: string, token: string, position: WidgetPosition): string {
  return `<script src="${baseUrl}/widget.js" data-key="${token}" data-position="${position}" defer></script>`;
}
