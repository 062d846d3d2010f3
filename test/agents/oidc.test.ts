import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { base32Decode, hotp, totpStep } from "../../src/agents/totp.js";
import { type FakeOidcProvider, startOidcProvider } from "../fakes/oidc-provider.js";
import {
  ConfirmMfaDocument,
  CreateAgentForTestDocument,
  DeleteOidcConfigDocument,
  EnrolMfaDocument,
  ExchangeLoginCodeDocument,
  OidcConfigDocument,
  SaveOidcConfigDocument,
  SessionsDocument,
  SignInProviderDocument,
  VerifyMfaLoginDocument,
} from "../generated.js";
import { addAgent } from "../helpers/agents.js";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { RedirectBrowser } from "../helpers/browser.js";

// Issue 12, item 5: sign-in through the tenant's OpenID Connect provider, against a real provider (oidc-provider) on
// 127.0.0.1, which the operator opens to the service with EGRESS_ALLOW_CIDRS. The service's public address is a name
// of its own; the test's browser reaches it on the test port.

const publicBase = "http://parley.test";
let app: TestApp;
let provider: FakeOidcProvider;
let bank: { tenantId: string; apiKey: string };

beforeAll(async () => {
  provider = await startOidcProvider(`${publicBase}/auth/oidc/callback`);
  app = await startTestApp({ EGRESS_ALLOW_CIDRS: "127.0.0.1/32", PUBLIC_BASE_URL: publicBase });
  bank = await app.tenant("Federated Bank");
  const saved = await app.graphql(
    SaveOidcConfigDocument,
    {
      issuer: provider.issuer,
      clientId: provider.clientId,
      clientSecret: provider.clientSecret,
      allowedDomains: ["Bank.Example"],
      jitRole: "agent",
    },
    bank.apiKey,
  );
  expect(saved.errors, JSON.stringify(saved.errors)).toBeUndefined();
});
afterAll(async () => {
  await app?.close();
  await provider?.close();
});

type Result = { errors?: Array<{ message: string; extensions?: { code?: string } }> };
const codeOf = (result: Result) => result.errors?.[0]?.extensions?.code;

const toTestPort = (url: URL) => (url.origin === publicBase ? new URL(`${url.pathname}${url.search}`, app.url) : url);
const atDashboard = (url: URL) => url.pathname.startsWith("/dashboard");

let people = 0;

/** A person the provider knows, who is at the browser next. */
function personAtProvider(claims: { email: string; email_verified?: boolean; name?: string }): string {
  const subject = `person-${++people}`;
  provider.accounts.set(subject, { email_verified: true, ...claims });
  provider.signInAs(subject);
  return subject;
}

/** Clicks "Sign in with the bank's provider" in a fresh browser: the dashboard URL it ends at, and its fragment. */
async function signIn(tenantId = bank.tenantId, returnTo = "/dashboard/inbox") {
  const browser = new RedirectBrowser(toTestPort);
  const landing = await browser.follow(
    new URL(`/auth/oidc/${tenantId}/start?return_to=${encodeURIComponent(returnTo)}`, publicBase),
    atDashboard,
  );
  return { landing, outcome: Object.fromEntries(new URLSearchParams(landing.hash.slice(1))), browser };
}

async function exchange(code: string) {
  return app.graphql(ExchangeLoginCodeDocument, { code }, null);
}

describe("the tenant's provider configuration", () => {
  it("keeps the client secret write-only and shows what to register at the provider", async () => {
    const config = await app.graphql(OidcConfigDocument, {}, bank.apiKey);
    expect(config.data?.oidcConfig).toMatchObject({
      issuer: provider.issuer,
      clientId: provider.clientId,
      clientSecret: `••••${provider.clientSecret.slice(-4)}`,
      allowedDomains: ["bank.example"],
      jitRole: "agent",
      enabled: true,
      redirectUri: `${publicBase}/auth/oidc/callback`,
      signInUrl: `${publicBase}/auth/oidc/${bank.tenantId}/start`,
    });
    const stored = await app.services.db.prisma.oidcConfig.findUniqueOrThrow({ where: { tenantId: bank.tenantId } });
    expect(stored.clientSecret).not.toContain(provider.clientSecret);
  });

  it("refuses an issuer on an internal address the operator did not open, and callers that may not configure", async () => {
    const other = await app.tenant("Curious Bank");
    const internal = await app.graphql(
      SaveOidcConfigDocument,
      { issuer: provider.issuer.replace("127.0.0.1", "127.0.0.2"), clientId: "x", clientSecret: "y" },
      other.apiKey,
    );
    expect(codeOf(internal)).toBe("VALIDATION");
    expect(internal.errors?.[0]?.message).toMatch(/private or reserved address/);
    const agent = await app.keyFor(other.tenantId, "agent");
    const refused = await app.graphql(
      SaveOidcConfigDocument,
      { issuer: provider.issuer, clientId: "x", clientSecret: "y" },
      agent,
    );
    expect(codeOf(refused)).toBe("FORBIDDEN");
  });

  it("answers 404 to a sign-in at a tenant without a provider, or whose provider was removed", async () => {
    const other = await app.tenant("Password Bank");
    const res = await app.request(`/auth/oidc/${other.tenantId}/start`);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: "NOT_FOUND" });
    const config = { issuer: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret };
    expect((await app.graphql(SaveOidcConfigDocument, config, other.apiKey)).errors).toBeUndefined();
    const start = () => new RedirectBrowser().get(new URL(`/auth/oidc/${other.tenantId}/start`, app.url));
    expect((await start()).status).toBe(302);
    expect((await app.graphql(DeleteOidcConfigDocument, {}, other.apiKey)).data?.deleteOidcConfig).toBe(true);
    expect((await start()).status).toBe(404);
  });

  it("tells the sign-in page, without a credential, the provider to offer, and nothing for a tenant without one", async () => {
    const offered = await app.graphql(SignInProviderDocument, { tenantId: bank.tenantId }, null);
    expect(offered.data?.signInProvider).toEqual({
      name: new URL(provider.issuer).host,
      signInPath: `/auth/oidc/${bank.tenantId}/start`,
    });
    const other = await app.tenant("Plain Password Bank");
    for (const tenantId of [other.tenantId, "ten_nobody", "x".repeat(100)]) {
      const none = await app.graphql(SignInProviderDocument, { tenantId }, null);
      expect(none.errors).toBeUndefined();
      expect(none.data?.signInProvider).toBeNull();
    }
    const tooLong = await app.graphql(SignInProviderDocument, { tenantId: "x".repeat(101) }, null);
    expect(codeOf(tooLong)).toBe("VALIDATION");
  });
});

describe("signing in through the provider", () => {
  it("runs the code flow with PKCE, state and nonce, and ends at the dashboard with a one-time code for a session", async () => {
    const agent = await addAgent(app, bank.apiKey, { name: "Sam" });
    const subject = personAtProvider({ email: agent.email.toUpperCase() });
    const browser = new RedirectBrowser(toTestPort);
    const start = await browser.get(toTestPort(new URL(`/auth/oidc/${bank.tenantId}/start`, publicBase)));
    expect(start.status).toBe(302);
    const authorization = new URL(start.headers.get("location")!);
    expect(authorization.origin).toBe(provider.issuer);
    expect(Object.fromEntries(authorization.searchParams)).toMatchObject({
      client_id: provider.clientId,
      redirect_uri: `${publicBase}/auth/oidc/callback`,
      response_type: "code",
      code_challenge_method: "S256",
      code_challenge: expect.stringMatching(/^[\w-]{43}$/),
      state: expect.any(String),
      nonce: expect.any(String),
    });
    expect(start.headers.get("set-cookie")).toMatch(
      /parley_oidc=.+; Max-Age=\d+; Path=\/auth\/oidc; Expires=.+; HttpOnly; SameSite=Lax/,
    );

    const landing = await browser.follow(authorization, atDashboard);
    expect(landing.pathname).toBe("/dashboard");
    const code = new URLSearchParams(landing.hash.slice(1)).get("login_code")!;
    expect(code).toMatch(/^olc_/);

    const session = await exchange(code);
    expect(session.data?.exchangeLoginCode).toMatchObject({
      token: expect.stringMatching(/^prs_/),
      agent: { id: agent.id },
      mfaChallenge: null,
    });
    const sessions = await app.graphql(SessionsDocument, {}, session.data!.exchangeLoginCode.token!);
    expect(sessions.data?.sessions.find((s) => s.current)?.method).toBe("oidc");
    // The code works once; the user is linked to the provider's subject from now on.
    expect(codeOf(await exchange(code))).toBe("AUTH_INVALID");
    expect((await app.services.db.prisma.user.findUniqueOrThrow({ where: { id: agent.id } })).oidcSubject).toBe(subject);
  });

  it("makes a user of the tenant's default role for a person of an allowed domain who has none yet", async () => {
    personAtProvider({ email: `new.${Date.now()}@bank.example`, name: "Noor Newcomer" });
    const { outcome } = await signIn(bank.tenantId, "/dashboard/welcome");
    const session = await exchange(outcome.login_code!);
    expect(session.data?.exchangeLoginCode.agent).toMatchObject({ name: "Noor Newcomer", role: "agent" });
  });

  it("asks for the second factor of a user who has two-factor sign-in on", async () => {
    const agent = await addAgent(app, bank.apiKey);
    const secret = (await app.graphql(EnrolMfaDocument, {}, agent.token)).data!.enrolMfa.secret;
    const step = totpStep(Date.now());
    await app.graphql(ConfirmMfaDocument, { code: hotp(base32Decode(secret), step) }, agent.token);
    personAtProvider({ email: agent.email });
    const { outcome } = await signIn();
    const first = await exchange(outcome.login_code!);
    expect(first.data?.exchangeLoginCode).toMatchObject({ token: null, mfaChallenge: { challengeToken: expect.any(String) } });
    const done = await app.graphql(
      VerifyMfaLoginDocument,
      { challengeToken: first.data!.exchangeLoginCode.mfaChallenge!.challengeToken, code: hotp(base32Decode(secret), step + 1) },
      null,
    );
    const sessions = await app.graphql(SessionsDocument, {}, done.data!.verifyMfaLogin.token);
    expect(sessions.data?.sessions.find((s) => s.current)?.method).toBe("oidc+mfa");
  });

  it.each([
    ["an e-mail domain the tenant does not allow", { email: "someone@elsewhere.example" }, /elsewhere\.example may not sign in/],
    ["an e-mail the provider has not verified", { email: "unverified@bank.example", email_verified: false }, /not verified/],
  ])("refuses %s, back at the dashboard with the reason", async (_case, claims, reason) => {
    personAtProvider(claims);
    const { outcome } = await signIn();
    expect(outcome).toEqual({ login_error: "AUTH_INVALID", message: expect.stringMatching(reason) });
  });

  it("refuses a second identity of the provider claiming an e-mail already linked to another", async () => {
    const agent = await addAgent(app, bank.apiKey);
    personAtProvider({ email: agent.email });
    expect((await signIn()).outcome.login_code).toBeDefined();
    personAtProvider({ email: agent.email });
    expect((await signIn()).outcome).toMatchObject({
      login_error: "AUTH_INVALID",
      message: expect.stringMatching(/linked to another identity/),
    });
  });

  it("signs in only existing users where the tenant makes none just in time", async () => {
    const other = await app.tenant("Closed Bank");
    await app.graphql(
      SaveOidcConfigDocument,
      { issuer: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret },
      other.apiKey,
    );
    personAtProvider({ email: `stranger.${Date.now()}@bank.example` });
    expect((await signIn(other.tenantId)).outcome).toMatchObject({
      login_error: "AUTH_INVALID",
      message: expect.stringMatching(/No account here/),
    });
    const email = `known.${Date.now()}@bank.example`;
    await app.graphql(CreateAgentForTestDocument, { name: "Known", email }, other.apiKey);
    personAtProvider({ email });
    expect((await exchange((await signIn(other.tenantId)).outcome.login_code!)).data?.exchangeLoginCode.agent?.email).toBe(email);
  });

  it("refuses a callback in a browser that did not start the sign-in (no flow cookie), and one with a wrong state", async () => {
    personAtProvider({ email: `victim.${Date.now()}@bank.example` });
    const attacker = new RedirectBrowser(toTestPort);
    const callback = await attacker.follow(
      new URL(`/auth/oidc/${bank.tenantId}/start`, publicBase),
      (url) => url.pathname === "/auth/oidc/callback",
    );
    const victim = await new RedirectBrowser(toTestPort).follow(callback, atDashboard);
    expect(Object.fromEntries(new URLSearchParams(victim.hash.slice(1)))).toMatchObject({
      login_error: "AUTH_INVALID",
      message: expect.stringMatching(/started in another browser/),
    });

    personAtProvider({ email: `other.${Date.now()}@bank.example` });
    const browser = new RedirectBrowser(toTestPort);
    const tampered = await browser.follow(
      new URL(`/auth/oidc/${bank.tenantId}/start`, publicBase),
      (url) => url.pathname === "/auth/oidc/callback",
    );
    tampered.searchParams.set("state", "not-the-state");
    const landing = await browser.follow(tampered, atDashboard);
    expect(Object.fromEntries(new URLSearchParams(landing.hash.slice(1)))).toEqual({
      login_error: "AUTH_INVALID",
      message: expect.stringMatching(/failed validation/),
    });
  });
});
