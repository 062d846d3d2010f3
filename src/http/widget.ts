import { type Request, Router } from "express";
import { permits } from "../auth/principal.js";
import { openChannel } from "../channels/store.js";
import { widgetConfig, widgetSnippet } from "../channels/widget.js";
import { answerWidgetPreflight } from "../channels/widget-access.js";
import { createWidgetToken } from "../channels/widget-token.js";
import { publicBaseUrl } from "../config.js";
import { scopeToTenant } from "../db/tenant-scope.js";
import { AppError, notFound } from "../errors.js";
import type { Services } from "../services.js";
import { demoTenantName } from "../tenants/bootstrap.js";
import { ensureDemoWidget } from "../tenants/demo-widget.js";
import { sendCachedAsset } from "./cached-asset.js";
import type { RateLimits } from "./rate-limit.js";
import { buildWidgetScript, type WidgetScript } from "./widget-script.js";

/** /widget.js, the widget endpoints' CORS preflight, and the demo page. */
export function widgetRouter(services: Services, limits: RateLimits): Router {
  const router = Router();
  // Built once per process; in development on every request, so that an edit to widget/ shows on reload.
  let built: Promise<WidgetScript> | null = null;
  const script = () => {
    if (services.config.NODE_ENV === "development") return buildWidgetScript();
    built ??= buildWidgetScript().catch((err) => {
      built = null;
      throw err;
    });
    return built;
  };

  router.get("/widget.js", async (req, res) => {
    const { js, gzipped, etag } = await script();
    res.setHeader("Content-Type", "text/javascript; charset=utf-8");
    res.setHeader("Cache-Control", "public, max-age=300");
    // Pages of other sites load it: a Cross-Origin-Resource-Policy of same-site on a proxy would break every one.
    res.setHeader("Cross-Origin-Resource-Policy", "cross-origin");
    sendCachedAsset(req, res, { body: js, gzipped, etag });
  });

  router.options("/api/v1/widget/{*rest}", (req, res) => answerWidgetPreflight(services, limits, req, res));

  router.get("/demo", async (req, res) => {
    res.setHeader("Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'");
    res.type("html").send(await demoPage(services, req));
  });
  return router;
}

/**
 * The demo tenant's widget on a page of this service, outside production for anyone (the widget is set up on the
 * first visit), and in production for a tenant's API key with the configure permission, on its own widget channel.
 */
async function demoPage(services: Services, req: Request): Promise<string> {
  const caller = req.principal;
  if (!caller && services.config.NODE_ENV === "production") {
    throw new AppError("AUTH_INVALID", "The demo page needs an API key in production");
  }
  if (caller && !permits(caller, "configure")) throw new AppError("FORBIDDEN", `The ${caller.role} role may not do this`);
  const channel = caller ? await ownWidget(services, caller.tenantId) : await demoWidget(services, req);
  const config = widgetConfig(channel.settings);
  const token = createWidgetToken(channel.tenantId, channel.id, channel.credentials.secret!);
  return page(config.title, widgetSnippet(publicBaseUrl(services.config), token, config.position), `${originOf(req)}/widget.js`);
}

const originOf = (req: Request) => `${req.protocol}://${req.get("host")}`;

async function ownWidget(services: Services, tenantId: string) {
  const row = await scopeToTenant(services.db.prisma, tenantId).channel.findFirst({
    where: { type: "widget", enabled: true },
    orderBy: { createdAt: "asc" },
  });
  if (!row) throw notFound("Widget channel");
  return openChannel(services, row);
}

async function demoWidget(services: Services, req: Request) {
  const tenant = await services.db.prisma.tenant.findFirst({ where: { name: demoTenantName }, orderBy: { createdAt: "asc" } });
  if (!tenant) throw new AppError("NOT_FOUND", `No demo tenant: the service creates "${demoTenantName}" on its first start`);
  return ensureDemoWidget(services, tenant.id, originOf(req));
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** A bank's home page with the widget, as a tenant would embed it (the script loads from this page's own origin). */
function page(title: string, snippet: string, scriptUrl: string): string {
  const tag = snippet.replace(/src="[^"]*"/, `src="${escapeHtml(scriptUrl)}"`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} — Parley widget demo</title>
<style>
body { font: 16px/1.5 system-ui, sans-serif; margin: 0; color: #1d2330; background: #f4f6fa; }
header { background: #0d2a6b; color: #fff; padding: 1.5rem 2rem; }
main { max-width: 48rem; margin: 2rem auto; padding: 0 1rem; }
pre { background: #fff; border: 1px solid #d0d5dd; padding: 1rem; overflow: auto; font-size: .85rem; white-space: pre-wrap; word-break: break-all; }
</style>
</head>
<body>
<header><h1>${escapeHtml(title)}</h1></header>
<main>
<p>This page embeds Parley's chat widget for this tenant. Open it with the button in the corner and ask, for example,
"What are your opening hours?" or "How do I reset my card PIN?".</p>
<p>Embed it on your own site with the tag below (the token is made by <code>POST /api/widget/tokens</code>), once your
site's origin is on the widget channel's <code>allowed_origins</code>:</p>
<pre>${escapeHtml(snippet)}</pre>
</main>
${tag}
</body>
</html>
`;
}
