import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AddNoteForTestDocument,
  ConversationActivityForTestDocument,
  CreateEscalationForTestDocument,
  InboxConversationsForTestDocument,
  TranscriptForTestDocument,
  UpdateEscalationForTestDocument,
} from "../generated.js";
import { addAgent, openFeed } from "../helpers/agents.js";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { conversationMessages } from "../helpers/channels.js";
import { seedConversation } from "../helpers/seed.js";

// What the dashboard's inbox asks of the API: queues (mine, unassigned), filters, previews, private notes, and
// every message live.

let app: TestApp;
let bank: { tenantId: string; apiKey: string };
let agent: { id: string; token: string };
let viewer: { id: string; token: string };

const chat = async (message: string, conversationId?: string) => {
  const res = await app.request("/api/chat", { key: bank.apiKey, body: { message, conversationId } });
  expect(res.status).toBe(200);
  return res.body as { conversationId: string; response: string; metadata: { intent: string } };
};

beforeAll(async () => {
  app = await startTestApp();
  bank = await app.tenant("Inbox Bank");
  await app.request("/api/knowledge/sources", {
    key: bank.apiKey,
    body: { type: "manual", title: "Hours", content: "Our branches are open Monday to Friday from 9:00 to 17:00." },
  });
  agent = await addAgent(app, bank.apiKey, { name: "Sam", role: "agent", availability: "offline" });
  viewer = await addAgent(app, bank.apiKey, { name: "Vic", role: "viewer" });
});
afterAll(() => app?.close());

describe("conversationActivity", () => {
  it("streams every message stored in the tenant's conversations, and one conversation's only when asked", async () => {
    const all = await openFeed(
      app,
      viewer.token,
      { document: ConversationActivityForTestDocument, variables: {}, topic: `conversation:activity:${bank.tenantId}` },
      (data) => data.conversationActivity,
    );
    const first = await chat("When are your branches open?");
    const only = await openFeed(
      app,
      viewer.token,
      {
        document: ConversationActivityForTestDocument,
        variables: { conversationId: first.conversationId },
        topic: `conversation:activity:${bank.tenantId}`,
      },
      (data) => data.conversationActivity,
    );
    const customer = await all.next((e) => e.conversationId === first.conversationId && e.message?.role === "customer");
    expect(customer).toMatchObject({ type: "message", message: { content: "When are your branches open?" } });
    await all.next((e) => e.conversationId === first.conversationId && e.message?.role === "assistant");

    const other = await chat("Hello there");
    await chat("And on Saturday?", first.conversationId);
    await all.next((e) => e.conversationId === other.conversationId && e.message?.role === "customer");
    await only.next((e) => e.message?.content === "And on Saturday?");
    expect(only.events.every((e) => e.conversationId === first.conversationId)).toBe(true);
    all.dispose();
    only.dispose();
  });
});

describe("private notes", () => {
  it("are kept for the team, never delivered, and out of the customer's transcript", async () => {
    const { conversationId } = await chat("When are your branches open?");
    const feed = await openFeed(
      app,
      viewer.token,
      {
        document: ConversationActivityForTestDocument,
        variables: { conversationId },
        topic: `conversation:activity:${bank.tenantId}`,
      },
      (data) => data.conversationActivity,
    );
    const added = await app.graphql(
      AddNoteForTestDocument,
      { conversationId, content: "Called her back: all fine" },
      agent.token,
    );
    expect(added.errors).toBeUndefined();
    expect(added.data!.addNote).toMatchObject({
      role: "note",
      delivery: null,
      metadata: { agentId: agent.id, agentName: "Sam" },
    });
    await feed.next((e) => e.message?.role === "note");
    feed.dispose();

    const withNotes = await app.graphql(TranscriptForTestDocument, { conversationId, includeNotes: true }, agent.token);
    // "system" is the AI disclosure that opened the conversation.
    expect(withNotes.data!.conversationMessages.items.map((m) => m.role)).toEqual(["customer", "system", "assistant", "note"]);
    const without = await app.graphql(TranscriptForTestDocument, { conversationId }, agent.token);
    expect(without.data!.conversationMessages.items.map((m) => m.role)).toEqual(["customer", "system", "assistant"]);
    expect((await conversationMessages(app, bank.apiKey, conversationId)).map((m) => m.role)).toEqual([
      "customer",
      "system",
      "assistant",
    ]);
    const conversation = await app.request(`/api/conversations/${conversationId}`, { key: bank.apiKey });
    expect(conversation.body.message_count).toBe(3);
    const list = await app.graphql(InboxConversationsForTestDocument, { customerId: undefined, limit: 5 }, agent.token);
    const item = list.data!.conversations.items.find((c) => c.id === conversationId);
    expect(item?.lastMessage?.role).toBe("assistant");
  });

  it("are refused to a viewer (FORBIDDEN) and on another tenant's conversation (NOT_FOUND)", async () => {
    const { conversationId } = await chat("Hello");
    const denied = await app.graphql(AddNoteForTestDocument, { conversationId, content: "x" }, viewer.token);
    expect(denied.errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
    const other = await app.tenant("Other Bank");
    const theirs = await seedConversation(app.services, other.tenantId);
    const hidden = await app.graphql(AddNoteForTestDocument, { conversationId: theirs, content: "x" }, agent.token);
    expect(hidden.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    expect(await app.services.db.prisma.message.count({ where: { conversationId: theirs, role: "note" } })).toBe(0);
    const empty = await app.graphql(AddNoteForTestDocument, { conversationId, content: "  " }, agent.token);
    expect(empty.errors?.[0]?.extensions?.code).toBe("VALIDATION");
  });
});

describe("conversation queues and filters", () => {
  it("lists the unassigned and the caller's own, with each one's open escalation and preview", async () => {
    const { conversationId, response } = await chat("When are your branches open?");
    const escalated = await app.graphql(CreateEscalationForTestDocument, { conversationId }, bank.apiKey);
    const escalationId = escalated.data!.createEscalation.id;
    const waiting = await app.graphql(InboxConversationsForTestDocument, { unassigned: true }, agent.token);
    expect(waiting.data!.conversations.items.map((c) => c.id)).toEqual([conversationId]);
    expect(waiting.data!.conversations.items[0]).toMatchObject({ status: "escalated", openEscalation: { id: escalationId } });
    expect(waiting.data!.conversations.items[0]!.lastMessage?.content).not.toBe(response);
    const mineBefore = await app.graphql(InboxConversationsForTestDocument, { mine: true }, agent.token);
    expect(mineBefore.data!.conversations.total).toBe(0);

    await app.graphql(UpdateEscalationForTestDocument, { id: escalationId, assigneeId: agent.id }, agent.token);
    const mine = await app.graphql(InboxConversationsForTestDocument, { mine: true }, agent.token);
    expect(mine.data!.conversations.items).toEqual([
      expect.objectContaining({
        id: conversationId,
        status: "assigned",
        openEscalation: { id: escalationId, assignee: { id: agent.id } },
      }),
    ]);
    expect(
      (await app.graphql(InboxConversationsForTestDocument, { unassigned: true }, agent.token)).data!.conversations.total,
    ).toBe(0);
  });

  it("filters by intent and by customer", async () => {
    const asked = await chat("When are your branches open?");
    const intent = asked.metadata.intent;
    const byIntent = await app.graphql(InboxConversationsForTestDocument, { intent, limit: 100 }, agent.token);
    expect(byIntent.data!.conversations.items.map((c) => c.id)).toContain(asked.conversationId);
    const none = await app.graphql(InboxConversationsForTestDocument, { intent: "no_such_intent" }, agent.token);
    expect(none.data!.conversations.total).toBe(0);

    const earlier = await seedConversation(app.services, bank.tenantId, { customerId: "wa_4915550001", status: "resolved" });
    const later = await seedConversation(app.services, bank.tenantId, { customerId: "wa_4915550001" });
    const customer = await app.graphql(InboxConversationsForTestDocument, { customerId: "wa_4915550001" }, viewer.token);
    expect(customer.data!.conversations.items.map((c) => c.id).sort()).toEqual([earlier, later].sort());
  });
});
