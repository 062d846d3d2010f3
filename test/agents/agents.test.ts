import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AgentForTestDocument,
  AgentsForTestDocument,
  CreateAgentForTestDocument,
  CreateApiKeyDocument,
  CreateTeamForTestDocument,
  DeleteTeamForTestDocument,
  LoginDocument,
  LogoutDocument,
  MeDocument,
  TeamsForTestDocument,
  UpdateAgentForTestDocument,
  UpdateTeamForTestDocument,
} from "../generated.js";
import { addAgent, agentPassword } from "../helpers/agents.js";
import { startTestApp, type TestApp } from "../helpers/app.js";

let app: TestApp;
let ownerKey: string;

beforeAll(async () => {
  app = await startTestApp({ SESSION_TTL_HOURS: "2" });
  ({ apiKey: ownerKey } = await app.tenant("Agents Bank"));
});
afterAll(() => app?.close());

const codeOf = (result: { errors?: Array<{ extensions?: { code?: string } }> }) => result.errors?.[0]?.extensions?.code;

describe("login", () => {
  it("logs a user in with e-mail and password and the session token works like an API key", async () => {
    const agent = await addAgent(app, ownerKey, { name: "Ada", role: "agent" });
    expect(agent.token).toMatch(/^prs_/);
    const me = await app.graphql(MeDocument, {}, agent.token);
    expect(me.data?.me).toMatchObject({ id: agent.id, name: "Ada", role: "agent" });
    const rest = await app.request("/api/agents", { key: agent.token });
    expect(rest.status).toBe(200);
    expect(rest.body.agents.map((a: { id: string }) => a.id)).toContain(agent.id);
  });

  it("stores the password as an argon2id hash and never returns it", async () => {
    const agent = await addAgent(app, ownerKey);
    const row = await app.services.db.prisma.user.findUniqueOrThrow({ where: { id: agent.id } });
    expect(row.passwordHash).toMatch(/^\$argon2id\$/);
    const rest = await app.request("/api/agents?limit=100", { key: ownerKey });
    expect(JSON.stringify(rest.body)).not.toMatch(/argon2|password/i);
  });

  it("answers 401 AUTH_INVALID for a wrong password or an unknown e-mail, the same way", async () => {
    const agent = await addAgent(app, ownerKey);
    const wrong = await app.graphql(LoginDocument, { email: agent.email, password: "not the password" }, null);
    const unknown = await app.graphql(LoginDocument, { email: "nobody@bank.example", password: agentPassword }, null);
    for (const result of [wrong, unknown]) {
      expect(codeOf(result)).toBe("AUTH_INVALID");
      expect(result.errors?.[0]?.message).toBe("Wrong e-mail or password");
    }
  });

  it("asks for the tenant when one e-mail has accounts at several (422), and logs in with it", async () => {
    const other = await app.tenant("Sister Bank");
    const here = await addAgent(app, ownerKey);
    const email = here.email;
    await app.graphql(CreateAgentForTestDocument, { name: "Twin", email, password: agentPassword }, other.apiKey);
    const ambiguous = await app.graphql(LoginDocument, { email, password: agentPassword }, null);
    expect(codeOf(ambiguous)).toBe("VALIDATION");
    const chosen = await app.graphql(LoginDocument, { email, password: agentPassword, tenantId: other.tenantId }, null);
    const me = await app.graphql(MeDocument, {}, chosen.data!.login.token);
    expect(me.data?.me?.name).toBe("Twin");
  });

  it("accepts the e-mail in any case", async () => {
    const agent = await addAgent(app, ownerKey);
    const login = await app.graphql(LoginDocument, { email: agent.email.toUpperCase(), password: agentPassword }, null);
    expect(login.data?.login.agent?.id).toBe(agent.id);
  });

  it("opens sessions for SESSION_TTL_HOURS", async () => {
    const agent = await addAgent(app, ownerKey);
    const login = await app.graphql(LoginDocument, { email: agent.email, password: agentPassword }, null);
    const lifetime = new Date(login.data!.login.expiresAt as string).getTime() - Date.now();
    expect(lifetime).toBeGreaterThan(2 * 3600_000 - 60_000);
    expect(lifetime).toBeLessThanOrEqual(2 * 3600_000);
  });

  it("ends the session on logout, and refuses an expired one", async () => {
    const agent = await addAgent(app, ownerKey);
    expect((await app.graphql(LogoutDocument, {}, agent.token)).data?.logout).toBe(true);
    const after = await app.request("/api/agents", { key: agent.token });
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ error: "Invalid or expired session: log in again", code: "AUTH_INVALID" });

    const other = await addAgent(app, ownerKey);
    await app.services.db.prisma.userSession.updateMany({
      where: { userId: other.id },
      data: { expiresAt: new Date(Date.now() - 1) },
    });
    expect((await app.request("/api/agents", { key: other.token })).status).toBe(401);
  });
});

describe("permissions follow the role", () => {
  it("lets a viewer read but not change anything (403 FORBIDDEN)", async () => {
    const viewer = await addAgent(app, ownerKey, { role: "viewer" });
    expect((await app.request("/api/agents", { key: viewer.token })).status).toBe(200);
    expect((await app.request("/api/escalations", { key: viewer.token })).status).toBe(200);
    expect((await app.request("/api/analytics", { key: viewer.token })).status).toBe(200);
    const create = await app.request("/api/agents", { key: viewer.token, body: { name: "X", email: "x@bank.example" } });
    expect(create.status).toBe(403);
    expect(create.body.code).toBe("FORBIDDEN");
    const chat = await app.request("/api/chat", { key: viewer.token, body: { message: "hello" } });
    expect(chat.status).toBe(403);
  });

  it("lets an agent change their own availability and name, but not their role or anyone else", async () => {
    const agent = await addAgent(app, ownerKey, { role: "agent" });
    const other = await addAgent(app, ownerKey, { role: "agent" });
    const own = await app.request("/api/agents", {
      method: "PUT",
      key: agent.token,
      body: { id: agent.id, availability: "online" },
    });
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ id: agent.id, availability: "online", role: "agent" });
    const promote = await app.request("/api/agents", { method: "PUT", key: agent.token, body: { id: agent.id, role: "admin" } });
    expect(promote.status).toBe(403);
    const others = await app.request("/api/agents", {
      method: "PUT",
      key: agent.token,
      body: { id: other.id, availability: "online" },
    });
    expect(others.status).toBe(403);
    const keys = await app.graphql(CreateApiKeyDocument, { name: "mine" }, agent.token);
    expect(codeOf(keys)).toBe("FORBIDDEN");
  });

  it("asks for the current password when a user changes their own", async () => {
    const agent = await addAgent(app, ownerKey);
    const without = await app.graphql(
      UpdateAgentForTestDocument,
      { id: agent.id, password: "a brand new password" },
      agent.token,
    );
    expect(codeOf(without)).toBe("VALIDATION");
    const changed = await app.graphql(
      UpdateAgentForTestDocument,
      { id: agent.id, password: "a brand new password", currentPassword: agentPassword },
      agent.token,
    );
    expect(changed.errors).toBeUndefined();
    const row = await app.services.db.prisma.user.findUniqueOrThrow({ where: { id: agent.id } });
    const login = await app.graphql(LoginDocument, { email: row.email, password: "a brand new password" }, null);
    expect(login.data?.login.agent?.id).toBe(agent.id);
  });

  it("lets an admin manage agents but not owners: only an owner makes or changes an owner", async () => {
    const admin = await addAgent(app, ownerKey, { role: "admin" });
    const made = await app.request("/api/agents", {
      key: admin.token,
      body: { name: "Grace", email: "Grace@Bank.example", role: "agent", max_concurrent: 3 },
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      name: "Grace",
      email: "grace@bank.example",
      role: "agent",
      max_concurrent: 3,
      active: true,
    });
    const owner = await app.request("/api/agents", {
      key: admin.token,
      body: { name: "O", email: "o@bank.example", role: "owner" },
    });
    expect(owner.status).toBe(403);
    const anOwner = await addAgent(app, ownerKey, { role: "owner" });
    const demote = await app.request("/api/agents", { method: "PUT", key: admin.token, body: { id: anOwner.id, role: "agent" } });
    expect(demote.status).toBe(403);
  });

  it("answers 422 for an e-mail that is taken and for invalid fields", async () => {
    const agent = await addAgent(app, ownerKey);
    const taken = await app.request("/api/agents", { key: ownerKey, body: { name: "Twin", email: agent.email } });
    expect(taken.status).toBe(422);
    expect(taken.body.code).toBe("VALIDATION");
    const bad = await app.request("/api/agents", {
      key: ownerKey,
      body: { name: "Bad", email: "not-an-email", password: "short", max_concurrent: 0 },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.details.map((d: { path: string }) => d.path).sort()).toEqual(["email", "maxConcurrent", "password"]);
  });
});

describe("the last owner", () => {
  it("cannot be demoted or removed (422), until another owner exists", async () => {
    const solo = await app.tenant("Solo Bank");
    const first = await addAgent(app, solo.apiKey, { role: "owner" });
    const demote = await app.request("/api/agents", { method: "PUT", key: first.token, body: { id: first.id, role: "admin" } });
    expect(demote.status).toBe(422);
    expect(demote.body.code).toBe("VALIDATION");
    const remove = await app.request("/api/agents", { method: "PUT", key: solo.apiKey, body: { id: first.id, active: false } });
    expect(remove.status).toBe(422);

    const second = await addAgent(app, solo.apiKey, { role: "owner" });
    const now = await app.request("/api/agents", { method: "PUT", key: second.token, body: { id: first.id, role: "admin" } });
    expect(now.status).toBe(200);
    expect(now.body.role).toBe("admin");
    const last = await app.request("/api/agents", { method: "PUT", key: second.token, body: { id: second.id, active: false } });
    expect(last.status).toBe(422);
  });
});

describe("removing an agent", () => {
  it("ends their sessions and leaves them out of the list", async () => {
    const agent = await addAgent(app, ownerKey);
    const removed = await app.request("/api/agents", { method: "PUT", key: ownerKey, body: { id: agent.id, active: false } });
    expect(removed.body).toMatchObject({ active: false, availability: "offline" });
    expect((await app.request("/api/agents", { key: agent.token })).status).toBe(401);
    const login = await app.graphql(LoginDocument, { email: agent.email, password: agentPassword }, null);
    expect(codeOf(login)).toBe("AUTH_INVALID");
    const list = await app.request("/api/agents?limit=100", { key: ownerKey });
    expect(list.body.agents.map((a: { id: string }) => a.id)).not.toContain(agent.id);
    const gone = await app.request("/api/agents?active=false", { key: ownerKey });
    expect(gone.body.agents.map((a: { id: string }) => a.id)).toContain(agent.id);
  });
});

describe("teams", () => {
  it("groups agents, lists them by team, and changes and removes teams", async () => {
    const a = await addAgent(app, ownerKey);
    const b = await addAgent(app, ownerKey);
    const team = await app.graphql(
      CreateTeamForTestDocument,
      { name: "Cards", intents: ["card_lost_or_stolen"], memberIds: [a.id] },
      ownerKey,
    );
    const teamId = team.data!.createTeam.id;
    expect(team.data!.createTeam).toMatchObject({ name: "Cards", intents: ["card_lost_or_stolen"], members: [{ id: a.id }] });
    await app.graphql(UpdateTeamForTestDocument, { id: teamId, memberIds: [a.id, b.id] }, ownerKey);
    const members = await app.graphql(AgentsForTestDocument, { teamId }, ownerKey);
    expect(members.data!.agents.items.map((x) => x.id).sort()).toEqual([a.id, b.id].sort());
    const agent = await app.graphql(AgentForTestDocument, { id: b.id }, ownerKey);
    expect(agent.data!.agent.teams).toEqual([{ id: teamId, name: "Cards" }]);
    const rest = await app.request(`/api/agents?team_id=${teamId}`, { key: ownerKey });
    expect(rest.body.total).toBe(2);
    expect(rest.body.agents[0].teams).toEqual([{ id: teamId, name: "Cards" }]);

    const duplicate = await app.graphql(CreateTeamForTestDocument, { name: "Cards" }, ownerKey);
    expect(codeOf(duplicate)).toBe("VALIDATION");
    const viewer = await addAgent(app, ownerKey, { role: "viewer" });
    expect(codeOf(await app.graphql(CreateTeamForTestDocument, { name: "Loans" }, viewer.token))).toBe("FORBIDDEN");
    expect((await app.graphql(DeleteTeamForTestDocument, { id: teamId }, ownerKey)).data?.deleteTeam.deleted).toBe(teamId);
    expect((await app.graphql(TeamsForTestDocument, {}, ownerKey)).data?.teams).toEqual([]);
  });

  it("gives a new agent their teams", async () => {
    const team = await app.graphql(CreateTeamForTestDocument, { name: "Mortgages" }, ownerKey);
    const teamId = team.data!.createTeam.id;
    const made = await app.graphql(
      CreateAgentForTestDocument,
      { name: "Linus", email: "linus@bank.example", teamIds: [teamId] },
      ownerKey,
    );
    expect(made.data!.createAgent).toMatchObject({
      role: "agent",
      availability: "offline",
      maxConcurrent: 5,
      teams: [{ id: teamId }],
    });
  });
});
