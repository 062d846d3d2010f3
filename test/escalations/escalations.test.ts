import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Candidate, pickAgent } from "../../src/escalations/assign.js";
import { CreateTeamForTestDocument, EscalationsForTestDocument, TimelineForTestDocument } from "../generated.js";
import { addAgent } from "../helpers/agents.js";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { seedConversation } from "../helpers/seed.js";

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.close());

type Tenant = { tenantId: string; apiKey: string };

async function escalate(key: string, conversationId: string, body: Record<string, unknown> = {}) {
  return app.request("/api/escalations", { key, body: { conversation_id: conversationId, ...body } });
}

async function escalated(tenant: Tenant, body: Record<string, unknown> = {}) {
  const conversationId = await seedConversation(app.services, tenant.tenantId, { channel: "api" });
  const res = await escalate(tenant.apiKey, conversationId, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; conversation_id: string; status: string; assignee: { id: string } | null };
}

const escalationById = async (key: string, id: string) =>
  (await app.request("/api/escalations?limit=100", { key })).body.escalations.find((e: { id: string }) => e.id === id);

const put = (key: string, body: Record<string, unknown>) => app.request("/api/escalations", { method: "PUT", key, body });

describe("escalations made by the router", () => {
  let bank: Tenant;
  beforeAll(async () => {
    bank = await app.tenant("Router Bank");
  });

  it("records a customer asking for a human, with who and why in the conversation's timeline", async () => {
    const chat = await app.request("/api/chat", {
      key: bank.apiKey,
      body: { message: "I want to speak to a real person please" },
    });
    const list = await app.request("/api/escalations", { key: bank.apiKey });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ total: 1, page: 1, limit: 20 });
    expect(list.body.escalations[0]).toMatchObject({
      conversation_id: chat.body.conversationId,
      reason: "customer_request",
      priority: "normal",
      status: "open",
      assignee: null,
      created_by: "ai",
      first_response_at: null,
    });
    const conversation = await app.request(`/api/conversations/${chat.body.conversationId}`, { key: bank.apiKey });
    expect(conversation.body.status).toBe("escalated");
    expect(conversation.body.timeline).toEqual([
      { type: "status", from: "open", to: "escalated", actor: "ai", reason: "customer_request", at: expect.any(String) },
    ]);
  });

  it("sends an urgent intent to the team that handles it, at urgent priority", async () => {
    const team = await app.graphql(CreateTeamForTestDocument, { name: "Cards", intents: ["card_lost_or_stolen"] }, bank.apiKey);
    const chat = await app.request("/api/chat", { key: bank.apiKey, body: { message: "My card was stolen this morning" } });
    const found = await app.graphql(EscalationsForTestDocument, { priority: "urgent" }, bank.apiKey);
    expect(found.data!.escalations.items).toEqual([
      expect.objectContaining({
        conversationId: chat.body.conversationId,
        reason: "urgent_intent",
        priority: "urgent",
        team: { id: team.data!.createTeam.id },
      }),
    ]);
  });

  it("keeps what a channel stored on the conversation when it escalates", async () => {
    const conversationId = await seedConversation(app.services, bank.tenantId, { channel: "api" });
    await app.services.db.prisma.conversation.update({
      where: { id: conversationId },
      data: { metadata: { ussd: { sessionId: "s1" } } },
    });
    expect((await escalate(bank.apiKey, conversationId)).status).toBe(201);
    const row = await app.services.db.prisma.conversation.findUniqueOrThrow({ where: { id: conversationId } });
    expect(row.metadata).toMatchObject({ ussd: { sessionId: "s1" }, escalation: { reason: "manual" }, lowConfidenceStreak: 0 });
  });
});

describe("escalations made through the API", () => {
  let bank: Tenant;
  beforeAll(async () => {
    bank = await app.tenant("API Bank");
  });

  it("escalates a conversation (201), tells the customer, and refuses a second one while it is worked (422)", async () => {
    const conversationId = await seedConversation(app.services, bank.tenantId, { channel: "api" });
    const res = await escalate(bank.apiKey, conversationId, { priority: "high", note: "VIP" });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ reason: "manual", priority: "high", status: "open", conversation_id: conversationId });
    expect(res.body.created_by).toMatch(/^key_/);
    const messages = await app.request(`/api/conversations/${conversationId}/messages`, { key: bank.apiKey });
    expect(messages.body.messages.at(-1)).toMatchObject({ role: "assistant", metadata: { agentType: "handoff" } });
    const again = await escalate(bank.apiKey, conversationId);
    expect(again.status).toBe(422);
    expect(again.body.code).toBe("VALIDATION");
  });

  it("answers 422 for a transition the state machine forbids and records nothing", async () => {
    const closed = await seedConversation(app.services, bank.tenantId, { channel: "api", status: "closed" });
    const res = await escalate(bank.apiKey, closed);
    expect(res.status).toBe(422);
    expect(res.body.error).toContain("closed to escalated");
    const timeline = await app.graphql(TimelineForTestDocument, { id: closed }, bank.apiKey);
    expect(timeline.data!.conversation).toMatchObject({ status: "closed", timeline: [], escalations: [] });
  });

  it("answers 404 for an unknown conversation and 422 for an unknown reason", async () => {
    expect((await escalate(bank.apiKey, "conv_missing")).status).toBe(404);
    const conversationId = await seedConversation(app.services, bank.tenantId, { channel: "api" });
    const bad = await escalate(bank.apiKey, conversationId, { reason: "boredom" });
    expect(bad.status).toBe(422);
  });
});

describe("the assignment rule", () => {
  it("picks the online agent of the team with the fewest open conversations, under their limit", () => {
    const agent = (id: string, open: number, extra: Partial<Candidate> = {}): Candidate => ({
      id,
      name: id,
      maxConcurrent: 3,
      lastAssignedAt: null,
      teamIds: [],
      open,
      ...extra,
    });
    expect(pickAgent([agent("a", 2), agent("b", 1), agent("c", 3)], null)?.id).toBe("b");
    expect(pickAgent([agent("a", 1, { maxConcurrent: 1 }), agent("b", 2)], null)?.id).toBe("b");
    expect(pickAgent([agent("a", 0), agent("b", 2, { teamIds: ["t"] })], "t")?.id).toBe("b");
    expect(pickAgent([agent("a", 0)], "t")).toBeUndefined();
    const waitedLonger = agent("b", 1, { lastAssignedAt: new Date(1_000) });
    expect(pickAgent([agent("a", 1, { lastAssignedAt: new Date(2_000) }), waitedLonger], null)?.id).toBe("b");
    expect(pickAgent([agent("b", 1), agent("a", 1)], null)?.id).toBe("a");
  });

  it("hands escalations out automatically, waits when everyone is full, and moves on as room frees up", async () => {
    const bank = await app.tenant("Queue Bank");
    const a = await addAgent(app, bank.apiKey, { availability: "online", maxConcurrent: 2 });
    const b = await addAgent(app, bank.apiKey, { availability: "online", maxConcurrent: 1 });
    const c = await addAgent(app, bank.apiKey, { availability: "away" });
    await addAgent(app, bank.apiKey, { role: "viewer", availability: "online" });

    const e1 = await escalated(bank);
    const e2 = await escalated(bank);
    const e3 = await escalated(bank);
    const e4 = await escalated(bank);
    expect([e1, e2, e3, e4].map((e) => e.assignee?.id ?? null)).toEqual([a.id, b.id, a.id, null]);
    expect(e4.status).toBe("open");

    // B resolves theirs: the waiting one goes to B at once.
    const resolved = await put(b.token, { id: e2.id, status: "resolved" });
    expect(resolved.status).toBe(200);
    expect(await escalationById(bank.apiKey, e4.id)).toMatchObject({ status: "assigned", assignee: { id: b.id } });

    // Everyone is full again; C comes online and is given the next one waiting.
    const e5 = await escalated(bank);
    expect(e5.assignee).toBeNull();
    await app.request("/api/agents", { method: "PUT", key: c.token, body: { id: c.id, availability: "online" } });
    expect(await escalationById(bank.apiKey, e5.id)).toMatchObject({ status: "assigned", assignee: { id: c.id } });

    const timeline = await app.graphql(TimelineForTestDocument, { id: e5.conversation_id }, bank.apiKey);
    expect(timeline.data!.conversation.timeline.at(-1)).toMatchObject({
      fromStatus: "escalated",
      toStatus: "assigned",
      actor: "system",
      reason: expect.stringContaining("automatically"),
    });
    const agents = await app.request("/api/agents?limit=100", { key: bank.apiKey });
    const open = Object.fromEntries(
      agents.body.agents.map((x: { id: string; open_conversations: number }) => [x.id, x.open_conversations]),
    );
    expect([open[a.id], open[b.id], open[c.id]]).toEqual([2, 1, 1]);
  });

  it("gives a team's escalations only to its members", async () => {
    const bank = await app.tenant("Team Bank");
    const cards = await addAgent(app, bank.apiKey, { availability: "online" });
    const general = await addAgent(app, bank.apiKey, { availability: "online" });
    const team = await app.graphql(CreateTeamForTestDocument, { name: "Cards", memberIds: [cards.id] }, bank.apiKey);
    const teamId = team.data!.createTeam.id;
    const first = await escalated(bank);
    expect(first.assignee?.id).toBe(cards.id);
    const forCards = await escalated(bank, { team_id: teamId });
    expect(forCards.assignee?.id).toBe(cards.id);
    const next = await escalated(bank);
    expect(next.assignee?.id).toBe(general.id);
    const byTeam = await app.request(`/api/escalations?team_id=${teamId}`, { key: bank.apiKey });
    expect(byTeam.body.escalations.map((e: { id: string }) => e.id)).toEqual([forCards.id]);
  });
});

describe("working escalations", () => {
  let bank: Tenant;
  let agent: { id: string; token: string };
  let other: { id: string; token: string };
  let admin: { id: string; token: string };
  let viewer: { id: string; token: string };

  beforeAll(async () => {
    bank = await app.tenant("Work Bank");
    agent = await addAgent(app, bank.apiKey, { name: "Agnes" });
    other = await addAgent(app, bank.apiKey, { name: "Otto" });
    admin = await addAgent(app, bank.apiKey, { role: "admin" });
    viewer = await addAgent(app, bank.apiKey, { role: "viewer" });
  });

  it("lets an agent take an unassigned escalation, but not give it to someone else (403)", async () => {
    const e = await escalated(bank);
    expect((await put(agent.token, { id: e.id, assignee_id: other.id })).status).toBe(403);
    const taken = await put(agent.token, { id: e.id, assignee_id: agent.id });
    expect(taken.status).toBe(200);
    expect(taken.body).toMatchObject({ status: "assigned", assignee: { id: agent.id, name: "Agnes" } });
    expect(taken.body.assigned_at).toEqual(expect.any(String));
  });

  it("keeps an agent off another agent's escalation (403) while an admin may reassign it", async () => {
    const e = await escalated(bank);
    await put(admin.token, { id: e.id, assignee_id: agent.id });
    expect((await put(other.token, { id: e.id, status: "resolved" })).status).toBe(403);
    const reply = await app.request(`/api/conversations/${e.conversation_id}/messages`, {
      key: other.token,
      body: { content: "Hi, Otto here" },
    });
    expect(reply.status).toBe(403);
    const moved = await put(admin.token, { id: e.id, assignee_id: other.id });
    expect(moved.body.assignee.id).toBe(other.id);
    const timeline = await app.graphql(TimelineForTestDocument, { id: e.conversation_id }, bank.apiKey);
    expect(timeline.data!.conversation.timeline.at(-1)).toMatchObject({
      type: "assignment",
      actor: admin.id,
      reason: expect.stringContaining(other.id),
    });
  });

  it("gives an escalation back to the queue with a null assignee", async () => {
    const e = await escalated(bank);
    await put(agent.token, { id: e.id, assignee_id: agent.id });
    const back = await put(agent.token, { id: e.id, assignee_id: null });
    expect(back.body).toMatchObject({ status: "open", assignee: null });
    const conversation = await app.request(`/api/conversations/${e.conversation_id}`, { key: bank.apiKey });
    expect(conversation.body.status).toBe("escalated");
  });

  it("lets a viewer read escalations but not work or create them (403)", async () => {
    const e = await escalated(bank);
    expect((await app.request("/api/escalations", { key: viewer.token })).status).toBe(200);
    const update = await put(viewer.token, { id: e.id, assignee_id: viewer.id });
    expect(update.status).toBe(403);
    expect(update.body.code).toBe("FORBIDDEN");
    const conversationId = await seedConversation(app.services, bank.tenantId, { channel: "api" });
    expect((await escalate(viewer.token, conversationId)).status).toBe(403);
    const reply = await app.request(`/api/conversations/${e.conversation_id}/messages`, {
      key: viewer.token,
      body: { content: "hi" },
    });
    expect(reply.status).toBe(403);
  });

  it("refuses an agent reply while the AI has the conversation (422), and to give a conversation to a viewer", async () => {
    const conversationId = await seedConversation(app.services, bank.tenantId, { channel: "api" });
    const reply = await app.request(`/api/conversations/${conversationId}/messages`, {
      key: agent.token,
      body: { content: "hi" },
    });
    expect(reply.status).toBe(422);
    const e = await escalated(bank);
    expect((await put(admin.token, { id: e.id, assignee_id: viewer.id })).status).toBe(422);
  });

  it("resolves an escalation, handing the conversation back, and a resolved one is final (422)", async () => {
    const e = await escalated(bank);
    await put(agent.token, { id: e.id, assignee_id: agent.id });
    const done = await put(agent.token, { id: e.id, status: "resolved", note: "card replaced" });
    expect(done.body).toMatchObject({ status: "resolved", resolved_at: expect.any(String) });
    const conversation = await app.request(`/api/conversations/${e.conversation_id}`, { key: bank.apiKey });
    expect(conversation.body.status).toBe("resolved");
    expect(conversation.body.timeline.at(-1)).toMatchObject({
      from: "assigned",
      to: "resolved",
      actor: agent.id,
      reason: "card replaced",
    });
    const again = await put(admin.token, { id: e.id, assignee_id: agent.id });
    expect(again.status).toBe(422);
  });

  it("gives a removed agent's conversations, or a demoted one's, back to the queue", async () => {
    const leaving = await addAgent(app, bank.apiKey);
    const demoted = await addAgent(app, bank.apiKey);
    const first = await escalated(bank);
    const second = await escalated(bank);
    await put(admin.token, { id: first.id, assignee_id: leaving.id });
    await put(admin.token, { id: second.id, assignee_id: demoted.id });
    await app.request("/api/agents", { method: "PUT", key: admin.token, body: { id: leaving.id, active: false } });
    await app.request("/api/agents", { method: "PUT", key: admin.token, body: { id: demoted.id, role: "viewer" } });
    for (const [e, why] of [
      [first, "the agent was removed"],
      [second, "the agent became a viewer"],
    ] as const) {
      expect(await escalationById(bank.apiKey, e.id)).toMatchObject({ status: "open", assignee: null });
      const conversation = await app.request(`/api/conversations/${e.conversation_id}`, { key: bank.apiKey });
      expect(conversation.body.timeline.at(-1)).toMatchObject({ from: "assigned", to: "escalated", reason: why });
    }
  });

  it("filters by status, assignee and priority, and pages", async () => {
    const bank2 = await app.tenant("Filter Bank");
    const mine = await addAgent(app, bank2.apiKey);
    const urgent = await escalated(bank2, { priority: "urgent" });
    await escalated(bank2);
    await escalated(bank2);
    await put(mine.token, { id: urgent.id, assignee_id: mine.id });
    const get = async (query: string) => (await app.request(`/api/escalations?${query}`, { key: mine.token })).body;
    expect((await get("status=open")).total).toBe(2);
    expect((await get(`assignee_id=${mine.id}`)).escalations.map((e: { id: string }) => e.id)).toEqual([urgent.id]);
    expect((await get("mine=true")).total).toBe(1);
    expect((await get("priority=urgent")).total).toBe(1);
    const page = await get("limit=2&page=2");
    expect(page).toMatchObject({ total: 3, page: 2, limit: 2 });
    expect(page.escalations).toHaveLength(1);
    const bad = await app.request("/api/escalations?status=lost", { key: mine.token });
    expect(bad.status).toBe(422);
    expect((await app.request("/api/escalations?limit=500", { key: mine.token })).status).toBe(422);
  });
});
