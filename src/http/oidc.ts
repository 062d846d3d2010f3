import { type Request, type Response, Router } from "express";
import {
  finishOidcSignIn,
  type OidcFlow,
  oidcCallbackPath,
  oidcRedirectUri,
  safeReturnPath,
  startOidcSignIn,
} from "../agents/oidc.js";
import { AppError, publicError } from "../errors.js";
import type { Services } from "../services.js";

const flowCookie = "parley_oidc";
const cookiePath = "/auth/oidc";

function cookieOf(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const [key, ...value] = part.trim().split("=");
    if (key === name) return decodeURIComponent(value.join("="));
  }
  return undefined;
}

/**
 * The flow rides in a sealed cookie of the browser that started it: a callback in another browser (a login CSRF,
 * an attacker's code sent to a victim) finds no flow, or one whose state does not match.
 */
function setFlowCookie(services: Services, res: Response, flow: OidcFlow | null): void {
  const secure = new URL(oidcRedirectUri(services)).protocol === "https:";
  res.cookie(flowCookie, flow ? services.secrets.sealJson(flow) : "", {
    httpOnly: true,
    secure,
    // Lax: the provider's redirect back is a top-level GET from another site, which must carry it.
    sameSite: "lax",
    path: cookiePath,
    maxAge: flow ? flow.expiresAt - Date.now() : 0,
  });
}

function flowOf(services: Services, req: Request): OidcFlow | null {
  const sealed = cookieOf(req, flowCookie);
  if (!sealed) return null;
  try {
    const flow = services.secrets.openJson<OidcFlow>(sealed);
    return flow.expiresAt > Date.now() ? flow : null;
  } catch {
    return null;
  }
}

/** Back to the dashboard with the outcome in the fragment, which browsers send to no server and no Referer carries. */
function backToDashboard(res: Response, returnTo: string, outcome: Record<string, string>): void {
  res.redirect(302, `${returnTo}#${new URLSearchParams(outcome).toString()}`);
}

/**
 * Sign-in through the tenant's OpenID Connect provider (README, Agents and login): GET /auth/oidc/:tenantId/start
 * sends the browser to the provider; the provider sends it back to GET /auth/oidc/callback, which ends at the
 * dashboard with `#login_code=…` (exchangeLoginCode) or `#login_error=<code>&message=…`.
 */
export function oidcRouter(services: Services): Router {
  const router = Router();

  router.get(`${cookiePath}/:tenantId/start`, async (req, res) => {
    const { authorizationUrl, flow } = await startOidcSignIn(services, String(req.params.tenantId), req.query.return_to);
    setFlowCookie(services, res, flow);
    res.redirect(302, authorizationUrl.href);
  });

  router.get(oidcCallbackPath, async (req, res) => {
    const flow = flowOf(services, req);
    setFlowCookie(services, res, null);
    const returnTo = flow?.returnTo ?? safeReturnPath(undefined);
    try {
      if (!flow) throw new AppError("AUTH_INVALID", "The sign-in expired or was started in another browser: start again");
      // The URL the provider redirected to, as registered (PUBLIC_BASE_URL), with the parameters it added.
      const callbackUrl = new URL(oidcRedirectUri(services));
      callbackUrl.search = new URL(req.originalUrl, callbackUrl).search;
      const code = await finishOidcSignIn(services, callbackUrl, flow, {
        clientIp: req.ip ?? "",
        userAgent: req.get("user-agent") ?? "",
      });
      backToDashboard(res, returnTo, { login_code: code });
    } catch (error) {
      const { error: message, code } = publicError(error);
      if (!(error instanceof AppError)) services.logger.error({ err: error }, "OpenID Connect callback failed");
      backToDashboard(res, returnTo, { login_error: code, message });
    }
  });

  return router;
}
