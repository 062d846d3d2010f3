import { getChannel } from "../../channels/config.js";
import { openChannel } from "../../channels/store.js";
import { widgetConfig, widgetSnippet } from "../../channels/widget.js";
import { createWidgetToken } from "../../channels/widget-token.js";
import { publicBaseUrl } from "../../config.js";
import { AppError } from "../../errors.js";
import { builder } from "../builder.js";

interface WidgetTokenShape {
  token: string;
  channelId: string;
  tenantId: string;
  embedSnippet: string;
}

const WidgetToken = builder.objectRef<WidgetTokenShape>("WidgetToken").implement({
  description: "A token for the embeddable widget: the data-key of its script tag. Rotating the channel's secret revokes it",
  fields: (t) => ({
    token: t.exposeString("token"),
    channelId: t.exposeID("channelId"),
    tenantId: t.exposeID("tenantId"),
    embedSnippet: t.exposeString("embedSnippet", { description: "The script tag to paste into the tenant's pages" }),
  }),
});

builder.mutationField("createWidgetToken", (t) =>
  t.field({
    type: WidgetToken,
    description: "Creates a token for a widget channel, signed with its secret (HMAC-SHA256). Tokens are not stored",
    authScopes: { permission: "configure" },
    audit: { action: "widgetToken.create", target: "channel", id: (_args, _ctx, token) => token?.channelId },
    args: {
      ref: t.arg.string({ required: false, description: "The widget channel's id; omitted: the tenant's widget channel" }),
    },
    resolve: async (_root, args, ctx) => {
      const row = await getChannel(ctx.db, args.ref ?? "widget");
      if (row.type !== "widget") {
        throw new AppError("VALIDATION", "Widget tokens are made for widget channels", [
          { path: "ref", message: "not a widget channel" },
        ]);
      }
      const channel = openChannel(ctx.services, row);
      const token = createWidgetToken(channel.tenantId, channel.id, channel.credentials.secret!);
      const position = widgetConfig(channel.settings).position;
      return {
        token,
        channelId: channel.id,
        tenantId: channel.tenantId,
        embedSnippet: widgetSnippet(publicBaseUrl(ctx.services.config), token, position),
      };
    },
  }),
);
