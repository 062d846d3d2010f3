import * as client from "openid-client";
import type { Role } from "../auth/roles.js";
import { publicBaseUrl } from "../config.js";
import { newId } from "../db/ids.js";
import { scopeToTenant } from "../db/tenant-scope.js";
import { AppError, notFound } from "../errors.js";
import { EgressRefusedError } from "../http/egress.js";
import type { Services } from "../services.js";
import { loginFailed, type SignInClient } from "./login-events.js";
import { consumeTicket, findTicket, issueTicket } from "./login-tickets.js";
import { continueSignIn, type SignInOutcome } from "./sessions.js";

/** Roles a person the provider vouches for may be given on their first sign-in: never owner. */
export const jitRoles = ["admin", "agent", "viewer"] as const satisfies readonly Role[];

/** The path of the callback every tenant's provider redirects to; register `{PUBLIC_BASE_URL}` + this. */
export const oidcCallbackPath = "/auth/oidc/callback";
export const oidcStartPath = (tenantId: string) => `/auth/oidc/${encodeURIComponent(tenantId)}/start`;
// Time to sign in at the provider (a password, its own second factor) before the flow is abandoned.
const flowLifetimeMs = 10 * 60_000;
// A provider's discovery document and keys are read again after this, or at once when the configuration changes.
const discoveryTtlMs = 10 * 60_000;
const requestTimeoutS = 10;

export interface OidcSettings {
  tenantId: string;
  issuer: string;
  clientId: string;
  clientSecret: string;
  allowedDomains: string[];
  emailClaim: string;
  jitRole: string | null;
  updatedAt: Date;
}

/** The signed-in person as the provider describes them: the ID token's claims, with userinfo's where it had none. */
type Claims = { sub: string; email_verified?: unknown; name?: unknown } & Record<string, unknown>;

/** What the browser carries between the start of a sign-in and the provider's callback, sealed in a cookie. */
export interface OidcFlow {
  tenantId: string;
  state: string;
  nonce: string;
  codeVerifier: string;
  returnTo: string;
  expiresAt: number;
}

export function oidcRedirectUri(services: Services): string {
  return `${publicBaseUrl(services.config)}${oidcCallbackPath}`;
}

/**
 * The provider's endpoints and keys, read from its discovery document through the egress guard (the issuer is the
 * tenant's choice, so an internal address is refused unless the operator opened it). Plain http only outside
 * production, for a provider on the developer's machine.
 */
async function discover(services: Services, settings: OidcSettings): Promise<client.Configuration> {
  const egressFetch: client.CustomFetch = (url, options) =>
    services.egress.fetch(new URL(url), {
      method: options.method,
      headers: options.headers,
      body: options.body as never,
      signal: options.signal,
    }) as unknown as Promise<Response>;
  const insecure = new URL(settings.issuer).protocol === "http:" && services.config.NODE_ENV !== "production";
  try {
    return await client.discovery(
      new URL(settings.issuer),
      settings.clientId,
      undefined,
      client.ClientSecretBasic(settings.clientSecret),
      { [client.customFetch]: egressFetch, timeout: requestTimeoutS, execute: insecure ? [client.allowInsecureRequests] : [] },
    );
  } catch (error) {
    throw providerError(error);
  }
}

function providerError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  // The egress guard's refusal says why best; the client library wraps it.
  let cause: unknown = error;
  while (cause instanceof Error && !(cause instanceof EgressRefusedError) && cause.cause) cause = cause.cause;
  const reason = cause instanceof EgressRefusedError ? cause.message : error instanceof Error ? error.message : String(error);
  return new AppError("EXTERNAL", `The sign-in provider could not be reached or answered wrongly: ${reason}`);
}

// The provider failed (an error page, not JSON): not the sign-in's fault.
const providerFaults = new Set(["OAUTH_RESPONSE_IS_NOT_CONFORM", "OAUTH_RESPONSE_IS_NOT_JSON", "OAUTH_PARSE_ERROR"]);

/** Why a callback's sign-in failed: the provider said no, or its answer did not pass validation (401), or it failed. */
function refusedSignIn(error: unknown): AppError {
  if (error instanceof client.AuthorizationResponseError || error instanceof client.ResponseBodyError) {
    return new AppError("AUTH_INVALID", `The sign-in provider refused: ${error.error_description ?? error.error}`);
  }
  if (error instanceof client.ClientError && !providerFaults.has(error.code ?? "")) {
    return new AppError("AUTH_INVALID", `The sign-in provider's answer failed validation: ${error.message}`);
  }
  return providerError(error);
}

const discovered = new Map<string, { at: number; configuration: Promise<client.Configuration> }>();

function cachedDiscovery(services: Services, settings: OidcSettings): Promise<client.Configuration> {
  const key = `${settings.tenantId}:${settings.updatedAt.getTime()}`;
  const hit = discovered.get(key);
  if (hit && Date.now() - hit.at < discoveryTtlMs) return hit.configuration;
  for (const old of discovered.keys()) if (old.startsWith(`${settings.tenantId}:`)) discovered.delete(old);
  const configuration = discover(services, settings);
  discovered.set(key, { at: Date.now(), configuration });
  configuration.catch(() => discovered.delete(key));
  return configuration;
}

/** Checks that a configuration works before it is saved: the issuer's discovery document can be read. */
export async function checkOidcIssuer(services: Services, settings: OidcSettings): Promise<void> {
  try {
    await discover(services, settings);
  } catch (error) {
    throw new AppError("VALIDATION", (error as Error).message, [{ path: "issuer", message: "discovery failed" }]);
  }
}

export async function oidcSettingsOf(services: Services, tenantId: string): Promise<OidcSettings | null> {
  const row = await scopeToTenant(services.db.prisma, tenantId).oidcConfig.findUnique({ where: { tenantId } });
  if (!row?.enabled) return null;
  return { ...row, clientSecret: services.secrets.open(row.clientSecret) };
}

/** A relative path of this service to come back to: anything else (another site) would make an open redirect. */
export function safeReturnPath(value: unknown): string {
  return typeof value === "string" && /^\/(?![/\\])[^\s#]*$/.test(value) && value.length <= 500 ? value : "/dashboard";
}

/** The provider's authorization URL (code flow, PKCE S256, state, nonce) and the flow the browser keeps meanwhile. */
export async function startOidcSignIn(
  services: Services,
  tenantId: string,
  returnTo: unknown,
): Promise<{ authorizationUrl: URL; flow: OidcFlow }> {
  const settings = await oidcSettingsOf(services, tenantId);
  if (!settings) throw notFound("Sign-in provider");
  const configuration = await cachedDiscovery(services, settings);
  const flow: OidcFlow = {
    tenantId,
    state: client.randomState(),
    nonce: client.randomNonce(),
    codeVerifier: client.randomPKCECodeVerifier(),
    returnTo: safeReturnPath(returnTo),
    expiresAt: Date.now() + flowLifetimeMs,
  };
  const authorizationUrl = client.buildAuthorizationUrl(configuration, {
    redirect_uri: oidcRedirectUri(services),
    scope: "openid email profile",
    response_type: "code",
    state: flow.state,
    nonce: flow.nonce,
    code_challenge: await client.calculatePKCECodeChallenge(flow.codeVerifier),
    code_challenge_method: "S256",
  });
  return { authorizationUrl, flow };
}

/**
 * The provider's redirect back: the code is exchanged (with the PKCE verifier), the ID token's signature, issuer,
 * audience, expiry and nonce are checked, its e-mail claim is mapped to a user, and a one-time login code is issued
 * for the dashboard to exchange for a session.
 */
export async function finishOidcSignIn(
  services: Services,
  callbackUrl: URL,
  flow: OidcFlow,
  signInClient: SignInClient,
): Promise<string> {
  const settings = await oidcSettingsOf(services, flow.tenantId);
  if (!settings) throw notFound("Sign-in provider");
  const configuration = await cachedDiscovery(services, settings);
  let claims: Claims;
  try {
    const tokens = await client.authorizationCodeGrant(configuration, callbackUrl, {
      pkceCodeVerifier: flow.codeVerifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce,
      idTokenExpected: true,
    });
    const idToken = tokens.claims()!;
    // Providers that follow OIDC Core 5.4 to the letter give scope claims (the e-mail) at userinfo only.
    claims =
      idToken[settings.emailClaim] === undefined
        ? { ...(await client.fetchUserInfo(configuration, tokens.access_token, idToken.sub)), ...idToken }
        : idToken;
  } catch (error) {
    const refused = refusedSignIn(error);
    await loginFailed(services, { method: "oidc", reason: refused.message, client: signInClient, tenantId: flow.tenantId });
    throw refused;
  }
  const user = await userForClaims(services, settings, claims).catch(async (error: AppError) => {
    await loginFailed(services, { method: "oidc", reason: error.message, client: signInClient, tenantId: flow.tenantId });
    throw error;
  });
  return (await issueTicket(services, { id: user.id, tenantId: flow.tenantId }, "oidc", "oidc")).token;
}

/**
 * The user the provider's claims name: the one linked to its subject, else the active user with the claimed e-mail
 * (linked now), else, when the tenant allows it, a new user with its default role.
 */
async function userForClaims(services: Services, settings: OidcSettings, claims: Claims): Promise<{ id: string }> {
  const db = scopeToTenant(services.db.prisma, settings.tenantId);
  const refuse = (why: string) => new AppError("AUTH_INVALID", why);
  const claimed = claims[settings.emailClaim];
  if (typeof claimed !== "string" || !claimed.includes("@"))
    throw refuse(`The provider sent no e-mail in the ${settings.emailClaim} claim`);
  if (claims.email_verified === false) throw refuse("The provider says this e-mail address is not verified");
  const email = claimed.trim().toLowerCase();
  const domain = email.slice(email.lastIndexOf("@") + 1);
  if (settings.allowedDomains.length && !settings.allowedDomains.includes(domain)) {
    throw refuse(`E-mail addresses of ${domain} may not sign in here`);
  }
  const linked = await db.user.findFirst({ where: { oidcSubject: claims.sub } });
  if (linked) {
    if (linked.deactivatedAt) throw refuse("This account was removed");
    return linked;
  }
  const existing = await db.user.findFirst({ where: { email } });
  if (existing) {
    if (existing.deactivatedAt) throw refuse("This account was removed");
    if (existing.oidcSubject) throw refuse("This account is linked to another identity of the provider");
    await db.user.update({ where: { id: existing.id }, data: { oidcSubject: claims.sub } });
    return existing;
  }
  if (!settings.jitRole) throw refuse("No account here has this e-mail address: ask an administrator to add you");
  const name = typeof claims.name === "string" && claims.name.trim() ? claims.name.trim().slice(0, 100) : email.split("@")[0]!;
  try {
    return await db.user.create({
      data: { id: newId("usr"), tenantId: settings.tenantId, email, name, role: settings.jitRole, oidcSubject: claims.sub },
    });
  } catch (err) {
    // The same person's sign-in in another tab made the user first: theirs is this one.
    if ((err as { code?: string }).code !== "P2002") throw err;
    return db.user.findFirstOrThrow({ where: { oidcSubject: claims.sub, deactivatedAt: null } });
  }
}

/** The dashboard's exchange of a one-time login code for a session (or a two-factor challenge). */
export async function exchangeOidcTicket(services: Services, code: string, signInClient: SignInClient): Promise<SignInOutcome> {
  const ticket = await findTicket(services, code, "oidc");
  if (!ticket || !(await consumeTicket(services, code))) {
    await loginFailed(services, { method: "oidc", reason: "unknown or used login code", client: signInClient });
    throw new AppError("AUTH_INVALID", "The login code is unknown, used or expired: sign in again");
  }
  const user = await services.db.prisma.user.findFirst({
    where: { id: ticket.userId, deactivatedAt: null },
    select: { id: true, tenantId: true, mfaEnabledAt: true },
  });
  if (!user) throw new AppError("AUTH_INVALID", "This account was removed");
  return continueSignIn(services, user, "oidc", signInClient);
}
