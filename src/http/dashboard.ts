import { Router } from "express";
import { notFound } from "../errors.js";
import type { Services } from "../services.js";
import { sendCachedAsset } from "./cached-asset.js";
import { buildDashboard, type DashboardBuild, dashboardAssetsPath } from "./dashboard-build.js";

/**
 * The app's own scripts, styles and API only: no inline script or style, nothing from another origin. Frames: the
 * widget's live preview on the Settings page loads the service's own /widget.js into the page itself.
 */
export const dashboardContentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** GET /dashboard (and every path under it: the app routes itself) and its hashed assets. */
export function dashboardRouter(services: Services): Router {
  const router = Router();
  let built: Promise<DashboardBuild> | null = null;
  // Built once per process, on the first visit; in development on every page load, so that an edit shows on reload.
  const app = (fresh: boolean) => {
    if (fresh && services.config.NODE_ENV === "development") built = null;
    built ??= buildDashboard().catch((err) => {
      built = null;
      throw err;
    });
    return built;
  };

  router.get(`${dashboardAssetsPath}:file`, async (req, res) => {
    const asset = (await app(false)).assets.get(req.params.file);
    if (!asset) throw notFound("Dashboard file");
    res.setHeader("Content-Type", asset.contentType);
    // The name carries the content's hash: it never changes.
    res.setHeader("Cache-Control", "public, max-age=31536000, immutable");
    sendCachedAsset(req, res, asset);
  });

  router.get(["/dashboard", "/dashboard/{*page}"], async (req, res) => {
    const { index } = await app(true);
    res.setHeader("Content-Security-Policy", dashboardContentSecurityPolicy);
    res.setHeader("Content-Type", "text/html; charset=utf-8");
    res.setHeader("Cache-Control", "no-cache");
    sendCachedAsset(req, res, index);
  });
  return router;
}
