import { print } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LoginDocument, MeDocument, RevokeSessionDocument, RevokeSessionsDocument, SessionsDocument } from "../generated.js";
import { addAgent, agentPassword } from "../helpers/agents.js";
import { startTestApp, type TestApp } from "../helpers/app.js";

// Issue 12, item 5: sessions listed and revoked. Sessions are read from the database on every request (no cache),
// so a revoked token is refused at the next request on every instance; on PostgreSQL a second instance checks it.

let app: TestApp;
let bank: { tenantId: string; apiKey: string };

beforeAll(async () => {
  app = await startTestApp({ TRUST_PROXY: "loopback" });
  bank = await app.tenant("Session Bank");
});
afterAll(() => app?.close());

type Result = { errors?: Array<{ extensions?: { code?: string } }> };
const codeOf = (result: Result) => result.errors?.[0]?.extensions?.code;

/** Another login of the same user, from another device. */
async function loginAgain(email: string, device: { ip: string; userAgent: string }): Promise<string> {
  const res = await app.request("/graphql", {
    headers: { "x-forwarded-for": device.ip, "user-agent": device.userAgent },
    body: { query: print(LoginDocument), variables: { email, password: agentPassword } },
  });
  return res.body.data.login.token;
}

const works = async (token: string) => (await app.request("/api/conversations", { key: token })).status === 200;

describe("an agent's own sessions", () => {
  it("lists them with where and how they were opened, and which one is this request's", async () => {
    const agent = await addAgent(app, bank.apiKey);
    const phone = await loginAgain(agent.email, { ip: "198.51.100.7", userAgent: "BankPhone/2.1" });
    const listed = await app.graphql(SessionsDocument, {}, phone);
    expect(listed.data?.sessions).toHaveLength(2);
    expect(listed.data?.sessions[0]).toMatchObject({
      method: "password",
      ipAddress: "198.51.100.7",
      userAgent: "BankPhone/2.1",
      current: true,
      agent: { id: agent.id },
      lastUsedAt: expect.any(String),
    });
    expect(listed.data?.sessions[1]?.current).toBe(false);
    const rest = await app.request("/api/sessions", { key: phone });
    expect(rest.status).toBe(200);
    expect(rest.body.sessions[0]).toMatchObject({ agent_id: agent.id, ip_address: "198.51.100.7", current: true });
  });

  it("revokes one: its token is refused at the next request, the others go on", async () => {
    const agent = await addAgent(app, bank.apiKey);
    const laptop = await loginAgain(agent.email, { ip: "198.51.100.8", userAgent: "Laptop" });
    const laptopId = (await app.graphql(SessionsDocument, {}, laptop)).data!.sessions.find((s) => s.current)!.id;
    expect((await app.graphql(RevokeSessionDocument, { id: laptopId }, agent.token)).data?.revokeSession).toBe(true);
    const refused = await app.request("/api/conversations", { key: laptop });
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ code: "AUTH_INVALID" });
    expect(await works(agent.token)).toBe(true);
  });

  it("ends every other session at once and keeps the current one", async () => {
    const agent = await addAgent(app, bank.apiKey);
    const others = [
      await loginAgain(agent.email, { ip: "198.51.100.9", userAgent: "A" }),
      await loginAgain(agent.email, { ip: "198.51.100.10", userAgent: "B" }),
    ];
    const res = await app.request("/api/sessions", { method: "DELETE", key: agent.token });
    expect(res.body).toEqual({ revoked: 2 });
    for (const token of others) expect(await works(token)).toBe(false);
    expect(await works(agent.token)).toBe(true);
  });

  it("keeps another agent's sessions out of an agent's reach", async () => {
    const agent = await addAgent(app, bank.apiKey);
    const colleague = await addAgent(app, bank.apiKey);
    expect(codeOf(await app.graphql(SessionsDocument, { agentId: colleague.id }, agent.token))).toBe("FORBIDDEN");
    const theirs = (await app.graphql(SessionsDocument, {}, colleague.token)).data!.sessions[0]!.id;
    expect(codeOf(await app.graphql(RevokeSessionDocument, { id: theirs }, agent.token))).toBe("NOT_FOUND");
    expect(codeOf(await app.graphql(RevokeSessionsDocument, { agentId: colleague.id }, agent.token))).toBe("FORBIDDEN");
    expect(await works(colleague.token)).toBe(true);
  });
});

describe("an admin or owner", () => {
  it("lists and revokes any agent's sessions in the tenant, by GraphQL or REST with an API key", async () => {
    const admin = await addAgent(app, bank.apiKey, { role: "admin" });
    const agent = await addAgent(app, bank.apiKey);
    const listed = await app.graphql(SessionsDocument, { agentId: agent.id }, admin.token);
    expect(listed.data?.sessions.map((s) => s.agent.id)).toEqual([agent.id]);
    expect((await app.graphql(RevokeSessionDocument, { id: listed.data!.sessions[0]!.id }, admin.token)).errors).toBeUndefined();
    expect(await works(agent.token)).toBe(false);

    const again = await loginAgain(agent.email, { ip: "198.51.100.11", userAgent: "C" });
    const offboarded = await app.request(`/api/sessions?agent_id=${agent.id}`, { method: "DELETE", key: bank.apiKey });
    expect(offboarded.body).toEqual({ revoked: 1 });
    expect(await works(again)).toBe(false);
  });

  it("needs an owner for an owner's sessions", async () => {
    const admin = await addAgent(app, bank.apiKey, { role: "admin" });
    const owner = await addAgent(app, bank.apiKey, { role: "owner" });
    expect(codeOf(await app.graphql(RevokeSessionsDocument, { agentId: owner.id }, admin.token))).toBe("FORBIDDEN");
    expect(await works(owner.token)).toBe(true);
    const otherOwner = await addAgent(app, bank.apiKey, { role: "owner" });
    expect((await app.graphql(RevokeSessionsDocument, { agentId: owner.id }, otherOwner.token)).data?.revokeSessions).toBe(1);
    expect(await works(owner.token)).toBe(false);
  });

  it("sees no other tenant's agents or sessions", async () => {
    const other = await app.tenant("Neighbour Bank");
    const stranger = await addAgent(app, other.apiKey);
    expect(codeOf(await app.graphql(SessionsDocument, { agentId: stranger.id }, bank.apiKey))).toBe("NOT_FOUND");
    const theirs = (await app.graphql(SessionsDocument, {}, stranger.token)).data!.sessions[0]!.id;
    expect((await app.request(`/api/sessions/${theirs}`, { method: "DELETE", key: bank.apiKey })).status).toBe(404);
    expect(await works(stranger.token)).toBe(true);
  });
});

describe.runIf(process.env.DATABASE_URL)("several instances", () => {
  it("refuses a session revoked on one instance at the next request on another", async () => {
    const second = await startTestApp({}, { database: app.database });
    try {
      const agent = await addAgent(app, bank.apiKey);
      expect((await second.graphql(MeDocument, {}, agent.token)).data?.me?.id).toBe(agent.id);
      await app.request(`/api/sessions?agent_id=${agent.id}`, { method: "DELETE", key: bank.apiKey });
      expect((await second.request("/api/conversations", { key: agent.token })).status).toBe(401);
    } finally {
      await second.close();
    }
  }, 120_000);
});
