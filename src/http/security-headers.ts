import type { RequestHandler } from "express";
import helmet from "helmet";

/**
 * Helmet's headers on every answer. The default policy lets a response load, run or frame nothing: an API answer
 * is data. The pages set their own (GraphiQL in src/http/graphiql.ts, /docs, the widget demo); /widget.js
 * says that other sites' pages may load it.
 */
export function securityHeaders(): RequestHandler[] {
  return [
    helmet({
      contentSecurityPolicy: {
        useDefaults: false,
        directives: {
          defaultSrc: ["'none'"],
          baseUri: ["'none'"],
          formAction: ["'none'"],
          frameAncestors: ["'none'"],
        },
      },
      frameguard: { action: "deny" },
      // Subdomains are the bank's to decide: the service marks only its own host as HTTPS-only.
      strictTransportSecurity: { maxAge: 180 * 24 * 3600, includeSubDomains: false },
    }),
    widgetProbeAnywhere,
  ];
}

/**
 * The widget on a bank's page asks /healthz without CORS to tell a refused origin from an outage
 * (widget/api.ts): that answer carries nothing, and other sites' pages must be able to receive it.
 */
const widgetProbeAnywhere: RequestHandler = (req, res, next) => {
  if (req.path === "/healthz") res.setHeader("Cross-Origin-Resource-Policy", "cross-origin");
  next();
};
