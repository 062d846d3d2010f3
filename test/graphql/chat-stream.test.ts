import { NetworkError } from "graphql-sse";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handoffNotice } from "../../src/conversations/escalate.js";
import { SendChatDocument, type StreamChatSubscriptionVariables, UpdateTenantDocument } from "../generated.js";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { type ChatStreams, chatStreams } from "../helpers/chat-stream.js";

// The chat over GraphQL with the offline engine: the `chat` mutation, and the `chatStream` subscription served by
// yoga over server-sent events in graphql-sse's distinct-connections mode, read with the graphql-sse client.

let app: TestApp;
let bank: { tenantId: string; apiKey: string };

const faq = `Cards

To reset your card PIN, open the mobile app, choose Cards, then Reset PIN. The new PIN works at once.

Branches

Our branches are open Monday to Friday from 9am to 5pm, and on Saturday from 9am to 12.30pm.`;

let streams: ChatStreams;
const subscribe = (headers: Record<string, string>, variables: StreamChatSubscriptionVariables) =>
  streams.subscribe(headers, variables);

/** A tenant whose knowledge is the help centre above. */
async function helpedTenant(name: string): Promise<{ tenantId: string; apiKey: string }> {
  const tenant = await app.tenant(name);
  const added = await app.request("/api/knowledge/sources", {
    key: tenant.apiKey,
    body: { type: "manual", title: "Help centre", content: faq },
  });
  expect(added.status).toBe(201);
  return tenant;
}

beforeAll(async () => {
  app = await startTestApp();
  streams = chatStreams(app.url);
  bank = await helpedTenant("Stream Bank");
});
afterAll(async () => {
  streams?.dispose();
  await app?.close();
});

describe("subscription chatStream over graphql-sse", () => {
  it("streams meta, then the answer's deltas, then done with the full reply", async () => {
    const results = await subscribe(
      { authorization: `Bearer ${bank.apiKey}` },
      { message: "How can I reset the PIN of my card?" },
    );
    expect(results.every((r) => !r.errors)).toBe(true);
    const events = results.map((r) => r.data!.chatStream);
    expect(events[0]!.type).toBe("meta");
    expect(events.at(-1)!.type).toBe("done");
    const deltas = events.slice(1, -1);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.every((e) => e.type === "delta")).toBe(true);

    const { conversationId, messageId } = events[0]!;
    const reply = events.at(-1)!.reply!;
    expect(reply).toMatchObject({ conversationId, messageId });
    expect(reply.response).toContain("Reset PIN");
    expect(deltas.map((e) => e.text).join("")).toBe(reply.response);
    expect(reply.metadata.sources[0]).toMatchObject({ title: "Help centre" });
  });

  it("continues a conversation given its id", async () => {
    const first = await subscribe({ authorization: `Bearer ${bank.apiKey}` }, { message: "Hello" });
    const conversationId = first[0]!.data!.chatStream.conversationId!;
    const second = await subscribe(
      { authorization: `Bearer ${bank.apiKey}` },
      { message: "When are branches open on Saturday?", conversationId },
    );
    const done = second.at(-1)!.data!.chatStream;
    expect(done.reply).toMatchObject({ conversationId, response: expect.stringContaining("12.30pm") });
  });

  it("is refused with AUTH_INVALID for an unknown key, before any event", async () => {
    const error = await subscribe({ authorization: "Bearer pk_live_not_a_real_key" }, { message: "hello" }).catch(
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(NetworkError);
    const response = (error as NetworkError<Response>).response!;
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ code: "AUTH_INVALID" });
  });

  it("errors with AUTH_INVALID without a key", async () => {
    const results = await subscribe({}, { message: "hello" });
    expect(results).toHaveLength(1);
    expect(results[0]!.errors?.[0]?.extensions?.code).toBe("AUTH_INVALID");
  });
});

describe("mutation chat", () => {
  it("returns the same Chat reply as POST /api/chat", async () => {
    const message = "How do I reset my PIN?";
    const rest = await app.request("/api/chat", { key: bank.apiKey, body: { message } });
    const graphql = await app.graphql(SendChatDocument, { message }, bank.apiKey);
    expect(graphql.errors).toBeUndefined();
    const reply = graphql.data!.chat;
    expect(Object.keys(reply).sort()).toEqual(Object.keys(rest.body).sort());
    expect(reply).toEqual({
      ...rest.body,
      conversationId: expect.stringMatching(/^conv_/),
      messageId: expect.stringMatching(/^msg_/),
    });
    expect(reply.conversationId).not.toBe(rest.body.conversationId);
  });

  it("escalates after the tenant's lowConfidenceEscalateAfter answers in a row that the knowledge base cannot ground", async () => {
    const tenant = await app.tenant("Strict Bank");
    const updated = await app.graphql(UpdateTenantDocument, { lowConfidenceEscalateAfter: 2 }, tenant.apiKey);
    expect(updated.data?.updateTenant.settings).toMatchObject({ lowConfidenceEscalateAfter: 2 });

    const first = await app.graphql(SendChatDocument, { message: "What is the airspeed velocity of a swallow?" }, tenant.apiKey);
    const { conversationId } = first.data!.chat;
    expect(first.data!.chat.metadata.agentType).toBe("fallback");
    expect(first.data!.chat.response).not.toContain(handoffNotice);
    const open = await app.request(`/api/conversations/${conversationId}`, { key: tenant.apiKey });
    expect(open.body.status).toBe("open");

    const second = await app.graphql(
      SendChatDocument,
      { message: "Which football team won the league in 1998?", conversationId },
      tenant.apiKey,
    );
    expect(second.data!.chat.metadata.agentType).toBe("fallback");
    expect(second.data!.chat.response).toMatch(/not sure|don't know|do not know/i);
    expect(second.data!.chat.response.endsWith(`\n\n${handoffNotice}`)).toBe(true);
    const escalated = await app.request(`/api/conversations/${conversationId}`, { key: tenant.apiKey });
    expect(escalated.body.status).toBe("escalated");
    const messages = await app.request(`/api/conversations/${conversationId}/messages`, { key: tenant.apiKey });
    expect(messages.body.messages.at(-1)).toMatchObject({ role: "assistant", metadata: { escalation: "low_confidence" } });
    const row = await app.services.db.prisma.conversation.findUniqueOrThrow({ where: { id: conversationId } });
    expect(row.metadata).toMatchObject({ escalation: { reason: "low_confidence" } });
  });

  it("counts the answers it cannot ground from the last grounded one, beside what channels keep in the conversation", async () => {
    const tenant = await helpedTenant("Counting Bank");
    const updated = await app.graphql(UpdateTenantDocument, { lowConfidenceEscalateAfter: 2 }, tenant.apiKey);
    expect(updated.data?.updateTenant.settings).toMatchObject({ lowConfidenceEscalateAfter: 2 });
    const ask = async (message: string, conversationId?: string) => {
      const sent = await app.graphql(SendChatDocument, { message, ...(conversationId ? { conversationId } : {}) }, tenant.apiKey);
      const { chat } = sent.data!;
      const row = await app.services.db.prisma.conversation.findUniqueOrThrow({ where: { id: chat.conversationId } });
      return { chat, status: row.status, metadata: row.metadata as Record<string, unknown> };
    };

    const first = await ask("What is the airspeed velocity of a swallow?");
    const { conversationId } = first.chat;
    expect(first.chat.metadata.agentType).toBe("fallback");
    expect(first.metadata).toMatchObject({ lowConfidenceStreak: 1 });
    // What a channel keeps there (a USSD session's screens) is not the streak's to write over.
    await app.services.db.prisma.$executeRaw`
      UPDATE conversations SET metadata = metadata || '{"ussd":{"sessionId":"s1"}}'::jsonb WHERE id = ${conversationId}`;

    const grounded = await ask("How can I reset the PIN of my card?", conversationId);
    expect(grounded.chat.metadata.agentType).not.toBe("fallback");
    expect(grounded.metadata).toMatchObject({ lowConfidenceStreak: 0, ussd: { sessionId: "s1" } });

    const again = await ask("Which football team won the league in 1998?", conversationId);
    expect(again.chat.metadata.agentType).toBe("fallback");
    expect(again).toMatchObject({ status: "open", metadata: { lowConfidenceStreak: 1, ussd: { sessionId: "s1" } } });

    const last = await ask("Who painted the Mona Lisa?", conversationId);
    expect(last.chat.response.endsWith(`\n\n${handoffNotice}`)).toBe(true);
    expect(last).toMatchObject({ status: "escalated", metadata: { ussd: { sessionId: "s1" } } });
  });
});

describe("mutation updateTenant, the chat settings", () => {
  it("stores the persona, the low-confidence limit and the PII redaction switch", async () => {
    const tenant = await app.tenant("Settings Bank");
    const res = await app.graphql(
      UpdateTenantDocument,
      { persona: "  Sam, formal and brief  ", lowConfidenceEscalateAfter: 5, piiRedaction: false },
      tenant.apiKey,
    );
    expect(res.data?.updateTenant.settings).toMatchObject({
      persona: "Sam, formal and brief",
      lowConfidenceEscalateAfter: 5,
      piiRedaction: false,
    });
  });

  it.each([
    ["a persona over 2,000 characters", { persona: "x".repeat(2001) }, "persona"],
    ["a low-confidence limit of 0", { lowConfidenceEscalateAfter: 0 }, "lowConfidenceEscalateAfter"],
    ["a low-confidence limit over 20", { lowConfidenceEscalateAfter: 21 }, "lowConfidenceEscalateAfter"],
  ])("refuses %s with VALIDATION", async (_name, variables, field) => {
    const res = await app.graphql(UpdateTenantDocument, variables, bank.apiKey);
    expect(res.errors?.[0]?.extensions?.code).toBe("VALIDATION");
    expect(JSON.stringify(res.errors?.[0]?.extensions?.details)).toContain(field);
  });
});
