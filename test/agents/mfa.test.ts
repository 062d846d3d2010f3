import { print } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { base32Decode, hotp, totpStep } from "../../src/agents/totp.js";
import {
  ConfirmMfaDocument,
  ConversationsDocument,
  DisableMfaDocument,
  EnrolMfaDocument,
  LoginTwoStepDocument,
  MeDocument,
  MfaStatusDocument,
  RenewRecoveryCodesDocument,
  RequireMfaDocument,
  ResetAgentMfaDocument,
  VerifyMfaLoginDocument,
} from "../generated.js";
import { addAgent, agentPassword } from "../helpers/agents.js";
import { type ApiResponse, startTestApp, type TestApp } from "../helpers/app.js";

// Issue 12, item 5: TOTP two-factor sign-in for agents, enforceable per tenant. Codes are computed by the test with
// the RFC 6238 implementation that test/agents/totp.test.ts checks against the RFC's reference values.

const freeCodeAttempts = 3;
let app: TestApp;
let ownerKey: string;

beforeAll(async () => {
  app = await startTestApp({ LOGIN_FREE_ATTEMPTS_PER_ACCOUNT: String(freeCodeAttempts), RATE_LIMIT_MAX: "1000" });
  ({ apiKey: ownerKey } = await app.tenant("Two Factor Bank"));
});
afterAll(() => app?.close());

type Result = { errors?: Array<{ message: string; extensions?: { code?: string } }> };
const codeOf = (result: Result) => result.errors?.[0]?.extensions?.code;

/** The authenticator app's code for a time step (now's by default). */
const codeFor = (secret: string, step = totpStep(Date.now())) => hotp(base32Decode(secret), step);

/**
 * A logged-in agent who enrolled: their secret, recovery codes, and the step of the code that confirmed it. Tests
 * name steps from that one, never from "now" again: the clock may pass a step boundary meanwhile, and the service
 * accepts one step either side of its own now.
 */
async function enrolledAgent(options: Parameters<typeof addAgent>[2] = {}) {
  const agent = await addAgent(app, ownerKey, options);
  const enrolment = await app.graphql(EnrolMfaDocument, {}, agent.token);
  const secret = enrolment.data!.enrolMfa.secret;
  const step = totpStep(Date.now());
  const confirmed = await app.graphql(ConfirmMfaDocument, { code: codeFor(secret, step) }, agent.token);
  expect(confirmed.errors).toBeUndefined();
  return { ...agent, secret, step, recoveryCodes: confirmed.data!.confirmMfa };
}

async function challengeFor(email: string): Promise<string> {
  const first = await app.graphql(LoginTwoStepDocument, { email, password: agentPassword }, null);
  expect(first.data?.login).toMatchObject({
    token: null,
    agent: null,
    mfaChallenge: { challengeToken: expect.stringMatching(/^mfc_/) },
  });
  return first.data!.login.mfaChallenge!.challengeToken;
}

describe("enrolment", () => {
  it("gives a base32 secret, its otpauth:// URI and a QR code, and turns on with a first code and ten recovery codes", async () => {
    const agent = await addAgent(app, ownerKey);
    const enrolment = await app.graphql(EnrolMfaDocument, {}, agent.token);
    const { secret, otpauthUri, qrSvg } = enrolment.data!.enrolMfa;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    const uri = new URL(otpauthUri);
    expect(uri.searchParams.get("secret")).toBe(secret);
    expect(decodeURIComponent(uri.pathname)).toBe(`/Parley (Two Factor Bank):${agent.email}`);
    expect(qrSvg).toMatch(/^<svg[\s\S]*<\/svg>$/);
    expect((await app.graphql(MfaStatusDocument, {}, agent.token)).data?.mfaStatus.enabled).toBe(false);

    expect(codeOf(await app.graphql(ConfirmMfaDocument, { code: "000000" }, agent.token))).toBe("AUTH_INVALID");
    const confirmed = await app.graphql(ConfirmMfaDocument, { code: codeFor(secret) }, agent.token);
    const codes = confirmed.data!.confirmMfa;
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(code).toMatch(/^[A-Z2-7]{4}-[A-Z2-7]{4}-[A-Z2-7]{4}-[A-Z2-7]{4}$/);
    expect((await app.graphql(MfaStatusDocument, {}, agent.token)).data?.mfaStatus).toMatchObject({
      enabled: true,
      recoveryCodesLeft: 10,
    });

    // Stored sealed and hashed: neither the secret nor a recovery code is in the database as given.
    const row = await app.services.db.prisma.user.findUniqueOrThrow({
      where: { id: agent.id },
      include: { recoveryCodes: true },
    });
    expect(row.mfaSecret).not.toContain(secret);
    expect(app.services.secrets.open(row.mfaSecret!)).toBe(secret);
    expect(JSON.stringify(row.recoveryCodes)).not.toContain(codes[0]!.replace(/-/g, ""));
    expect(codeOf(await app.graphql(EnrolMfaDocument, {}, agent.token))).toBe("VALIDATION");
  });

  it("is refused to an API key, which has no second factor", async () => {
    expect(codeOf(await app.graphql(EnrolMfaDocument, {}, ownerKey))).toBe("VALIDATION");
  });
});

describe("two-step login", () => {
  it("answers a challenge instead of a session, and a session for the challenge and a fresh code", async () => {
    const agent = await enrolledAgent();
    const challengeToken = await challengeFor(agent.email);
    const done = await app.graphql(VerifyMfaLoginDocument, { challengeToken, code: codeFor(agent.secret, agent.step + 1) }, null);
    expect(done.data?.verifyMfaLogin).toMatchObject({ token: expect.stringMatching(/^prs_/), agent: { id: agent.id } });
    const me = await app.graphql(MeDocument, {}, done.data!.verifyMfaLogin.token);
    expect(me.data?.me?.id).toBe(agent.id);
    // A challenge opens one session only.
    const again = await app.graphql(VerifyMfaLoginDocument, { challengeToken, code: agent.recoveryCodes[0]! }, null);
    expect(codeOf(again)).toBe("AUTH_INVALID");
  });

  it("refuses a code already used, even within its window", async () => {
    const agent = await enrolledAgent();
    const challengeToken = await challengeFor(agent.email);
    // The enrolment's confirming code was of this step.
    const replay = await app.graphql(VerifyMfaLoginDocument, { challengeToken, code: codeFor(agent.secret, agent.step) }, null);
    expect(codeOf(replay)).toBe("AUTH_INVALID");
    expect(replay.errors?.[0]?.message).toBe("Wrong or already used code");
    const next = codeFor(agent.secret, agent.step + 1);
    expect((await app.graphql(VerifyMfaLoginDocument, { challengeToken, code: next }, null)).errors).toBeUndefined();
    const second = await challengeFor(agent.email);
    expect(codeOf(await app.graphql(VerifyMfaLoginDocument, { challengeToken: second, code: next }, null))).toBe("AUTH_INVALID");
  });

  it("takes each recovery code once instead of a code, written with or without dashes", async () => {
    const agent = await enrolledAgent();
    const [first, second] = agent.recoveryCodes;
    const login = async (code: string) =>
      app.graphql(VerifyMfaLoginDocument, { challengeToken: await challengeFor(agent.email), code }, null);
    expect((await login(first!.toLowerCase())).data?.verifyMfaLogin.token).toMatch(/^prs_/);
    expect(codeOf(await login(first!))).toBe("AUTH_INVALID");
    expect((await login(second!.replace(/-/g, " "))).data?.verifyMfaLogin.token).toMatch(/^prs_/);
  });

  it("refuses an unknown challenge with 401", async () => {
    const result = await app.graphql(VerifyMfaLoginDocument, { challengeToken: "mfc_made_up", code: "123456" }, null);
    expect(codeOf(result)).toBe("AUTH_INVALID");
  });

  it("throttles wrong codes like passwords: 429 RATE_LIMIT with Retry-After once the free attempts are spent", async () => {
    const agent = await enrolledAgent();
    const challengeToken = await challengeFor(agent.email);
    let refused: ApiResponse | undefined;
    for (let attempt = 1; attempt <= freeCodeAttempts + 4 && !refused; attempt++) {
      const res = await app.request("/graphql", {
        body: { query: print(VerifyMfaLoginDocument), variables: { challengeToken, code: "000000" } },
      });
      if (res.status === 429) refused = res;
      else expect(res.body.errors[0].extensions.code).toBe("AUTH_INVALID");
    }
    expect(refused?.body.errors[0].extensions.code).toBe("RATE_LIMIT");
    expect(Number(refused?.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    // The right code waits too: a guesser cannot tell it from a wrong one while held up.
    const right = await app.graphql(
      VerifyMfaLoginDocument,
      { challengeToken, code: codeFor(agent.secret, agent.step + 1) },
      null,
    );
    expect(codeOf(right)).toBe("RATE_LIMIT");
  });
});

describe("turning it off", () => {
  it("needs a valid code, then logins take the password alone", async () => {
    const agent = await enrolledAgent();
    expect(codeOf(await app.graphql(DisableMfaDocument, { code: "000000" }, agent.token))).toBe("AUTH_INVALID");
    expect((await app.graphql(DisableMfaDocument, { code: agent.recoveryCodes[3]! }, agent.token)).data?.disableMfa).toBe(true);
    const login = await app.graphql(LoginTwoStepDocument, { email: agent.email, password: agentPassword }, null);
    expect(login.data?.login).toMatchObject({ token: expect.stringMatching(/^prs_/), mfaChallenge: null });
    expect(await app.services.db.prisma.mfaRecoveryCode.count({ where: { userId: agent.id } })).toBe(0);
  });

  it("renews the recovery codes with a code: the old ones stop working", async () => {
    const agent = await enrolledAgent();
    const renewed = await app.graphql(RenewRecoveryCodesDocument, { code: agent.recoveryCodes[0]! }, agent.token);
    expect(renewed.data?.renewRecoveryCodes).toHaveLength(10);
    const old = await app.graphql(
      VerifyMfaLoginDocument,
      { challengeToken: await challengeFor(agent.email), code: agent.recoveryCodes[1]! },
      null,
    );
    expect(codeOf(old)).toBe("AUTH_INVALID");
  });

  it("is reset by an admin for an agent who lost the app; an admin may not reset an owner's", async () => {
    const agent = await enrolledAgent();
    const admin = await addAgent(app, ownerKey, { role: "admin" });
    const owner = await enrolledAgent({ role: "owner" });
    expect(codeOf(await app.graphql(ResetAgentMfaDocument, { agentId: agent.id }, agent.token))).toBe("FORBIDDEN");
    expect((await app.graphql(ResetAgentMfaDocument, { agentId: agent.id }, admin.token)).data?.resetAgentMfa).toBe(true);
    expect(codeOf(await app.graphql(ResetAgentMfaDocument, { agentId: owner.id }, admin.token))).toBe("FORBIDDEN");
    const login = await app.graphql(LoginTwoStepDocument, { email: agent.email, password: agentPassword }, null);
    expect(login.data?.login.token).toMatch(/^prs_/);
  });
});

describe("a tenant that requires two-factor sign-in", () => {
  it("holds an agent without it to enrolment until they have enrolled, on GraphQL and REST", async () => {
    const bank = await app.tenant("Strict Bank");
    const agent = await addAgent(app, bank.apiKey);
    // The session opened before the setting is held back at once.
    expect((await app.graphql(RequireMfaDocument, { requireMfa: true }, bank.apiKey)).errors).toBeUndefined();

    const held = await app.graphql(ConversationsDocument, {}, agent.token);
    expect(codeOf(held)).toBe("FORBIDDEN");
    expect(held.errors?.[0]?.message).toMatch(/requires two-factor sign-in: enrol first/);
    const rest = await app.request("/api/conversations", { key: agent.token });
    expect(rest.status).toBe(403);
    expect(rest.body).toMatchObject({ code: "FORBIDDEN", error: expect.stringMatching(/enrol first/) });
    expect((await app.graphql(MeDocument, {}, agent.token)).data?.me?.id).toBe(agent.id);
    expect((await app.graphql(MfaStatusDocument, {}, agent.token)).data?.mfaStatus).toMatchObject({
      enabled: false,
      tenantRequires: true,
      enrolmentRequired: true,
    });
    // API keys are not held back: they have no second factor to give.
    expect((await app.request("/api/conversations", { key: bank.apiKey })).status).toBe(200);

    // A new login says so, and gets a session that may enrol.
    const login = await app.graphql(LoginTwoStepDocument, { email: agent.email, password: agentPassword }, null);
    expect(login.data?.login).toMatchObject({ token: expect.stringMatching(/^prs_/), mfaEnrolmentRequired: true });
    const secret = (await app.graphql(EnrolMfaDocument, {}, login.data!.login.token!)).data!.enrolMfa.secret;
    const codes = (await app.graphql(ConfirmMfaDocument, { code: codeFor(secret) }, login.data!.login.token!)).data!.confirmMfa;
    expect((await app.graphql(ConversationsDocument, {}, agent.token)).errors).toBeUndefined();
    expect((await app.request("/api/conversations", { key: agent.token })).status).toBe(200);

    const disable = await app.graphql(DisableMfaDocument, { code: codes[0]! }, agent.token);
    expect(codeOf(disable)).toBe("VALIDATION");
    expect(disable.errors?.[0]?.message).toMatch(/requires two-factor sign-in/);
  });
});
