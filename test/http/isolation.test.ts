import { getNamedType, isNonNullType, isScalarType } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scopeToTenant } from "../../src/db/tenant-scope.js";
import { schema } from "../../src/graphql/schema/index.js";
import { restRoutes } from "../../src/rest/index.js";
import {
  AddManualSourceForTestDocument,
  AddNoteForTestDocument,
  AgentForTestDocument,
  ApiKeysDocument,
  ChannelForTestDocument,
  ConversationDocument,
  ConversationsDocument,
  CreateAgentForTestDocument,
  CreateEscalationForTestDocument,
  CreateEvaluationCaseForTestDocument,
  CreateIntentForTestDocument,
  CreateTeamForTestDocument,
  DeleteChannelForTestDocument,
  DeleteEvaluationCaseForTestDocument,
  DeleteIntentForTestDocument,
  DeleteKnowledgeSourceForTestDocument,
  DeleteTeamForTestDocument,
  DeleteVoiceForTestDocument,
  EscalationForTestDocument,
  EvaluationRunForTestDocument,
  JobsDocument,
  KnowledgeSourceForTestDocument,
  RateConversationForTestDocument,
  RateMessageForTestDocument,
  ReplyForTestDocument,
  ResetAgentMfaDocument,
  RetryJobDocument,
  RevokeApiKeyDocument,
  RevokeSessionDocument,
  RevokeSessionsDocument,
  RunEvaluationForTestDocument,
  SaveChannelForTestDocument,
  SaveVoiceForTestDocument,
  SessionsDocument,
  SyncKnowledgeSourceForTestDocument,
  TenantDocument,
  UpdateAgentForTestDocument,
  UpdateEscalationForTestDocument,
  UpdateEvaluationCaseForTestDocument,
  UpdateIntentForTestDocument,
  UpdateTeamForTestDocument,
  UpdateTenantDocument,
} from "../generated.js";
import { addAgent } from "../helpers/agents.js";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { seedConversation } from "../helpers/seed.js";

let app: TestApp;
let a: { tenantId: string; apiKey: string };
let b: { tenantId: string; apiKey: string };
let aConversation: string;
let aEscalated: string;
let aJob: string;
let aKeyId: string;
let aChannel: string;
let aCase: string;
let aRun: string;
let aEndpoint: string;
let aEndpointToDelete: string;
let aEvent: string;
let aSession: string;

/** A dashboard session of tenant A (a new agent's login). */
async function sessionOfA(): Promise<{ agentId: string; sessionId: string }> {
  const agent = await addAgent(app, a.apiKey);
  const session = await app.services.db.prisma.userSession.findFirstOrThrow({ where: { userId: agent.id } });
  return { agentId: agent.id, sessionId: session.id };
}
let aReply: string;
let aResolved: string;
let aHold: string;

beforeAll(async () => {
  app = await startTestApp();
  a = await app.tenant("Bank A");
  b = await app.tenant("Bank B");
  aConversation = await seedConversation(app.services, a.tenantId, { messages: [{ role: "customer", content: "A's secret" }] });
  await seedConversation(app.services, b.tenantId);
  aEscalated = await seedConversation(app.services, a.tenantId, { channel: "api" });
  expect((await app.request("/api/escalations", { key: a.apiKey, body: { conversation_id: aEscalated } })).status).toBe(201);
  aJob = await app.services.jobs.enqueue({ queue: "test.isolation", tenantId: a.tenantId, maxAttempts: 1 });
  await app.services.db.sql.query("UPDATE jobs SET status = 'dead' WHERE id = $1", [aJob]);
  aKeyId = (await app.services.db.prisma.apiKey.findFirstOrThrow({ where: { tenantId: a.tenantId } })).id;
  const credentials = {
    phone_number_id: "220000000000001",
    access_token: "EAAG-a-only-token",
    verify_token: "a-verify",
    app_secret: "a-app-secret",
  };
  aChannel = (await app.graphql(SaveChannelForTestDocument, { ref: "chatapp", credentials }, a.apiKey)).data!.saveChannel.channel
    .id;
  aCase = (await app.graphql(CreateEvaluationCaseForTestDocument, { question: "A's secret rate?", expect: "decline" }, a.apiKey))
    .data!.createEvaluationCase.id;
  aRun = (await app.graphql(RunEvaluationForTestDocument, {}, a.apiKey)).data!.runEvaluation.id;
  const endpoint = (url: string) =>
    app
      .request("/api/webhooks", { key: a.apiKey, body: { url, event_types: ["message.sent"] } })
      .then((r) => r.body.id as string);
  aEndpoint = await endpoint("https://hooks.bank-a.example/parley");
  aEndpointToDelete = await endpoint("https://hooks.bank-a.example/old");
  aEvent = (await app.services.db.prisma.$transaction((tx) =>
    app.services.events.record(tx, a.tenantId, "message.sent", { message: { id: "msg_isolation" } }),
  ))!;
  aSession = (await sessionOfA()).sessionId;
  const answered = await seedConversation(app.services, a.tenantId, { channel: "api" });
  aReply = (await app.services.db.prisma.message.findFirstOrThrow({ where: { conversationId: answered, role: "assistant" } })).id;
  // A resolved conversation, with its satisfaction question open.
  aResolved = await seedConversation(app.services, a.tenantId, { channel: "api" });
  const escalation = await app.request("/api/escalations", { key: a.apiKey, body: { conversation_id: aResolved } });
  const resolved = await app.request("/api/escalations", {
    method: "PUT",
    key: a.apiKey,
    body: { id: escalation.body.id, status: "resolved" },
  });
  expect(resolved.status).toBe(200);
  const hold = await app.request("/api/legal-holds", {
    key: a.apiKey,
    body: { conversation_id: aConversation, reason: "A's matter" },
  });
  aHold = hold.body.id;
});
afterAll(() => app?.close());

/**
 * A's resource for every path parameter of every REST route (by path, or by method and path where they differ),
 * and the body a call needs to succeed as A; a new route must be added here.
 */
const aResourceFor = (method: string, path: string): { params: Record<string, string>; body?: unknown } => {
  const table: Record<string, { params: Record<string, string>; body?: unknown }> = {
    "/api/conversations/:id": { params: { id: aConversation } },
    "get /api/conversations/:id/messages": { params: { id: aConversation } },
    "get /api/conversations/:id/export": { params: { id: aConversation } },
    "post /api/conversations/:id/messages": { params: { id: aEscalated }, body: { content: "An agent's reply" } },
    "/api/tenant/channels/:channelId": { params: { channelId: aChannel } },
    "put /api/evaluations/cases/:id": { params: { id: aCase }, body: { question: "A's secret rate, asked again?" } },
    "delete /api/evaluations/cases/:id": { params: { id: aCase } },
    "/api/evaluations/runs/:id": { params: { id: aRun } },
    "/api/webhooks/:id": { params: { id: aEndpoint } },
    "put /api/webhooks/:id": { params: { id: aEndpoint }, body: { description: "A's CRM" } },
    "delete /api/webhooks/:id": { params: { id: aEndpointToDelete } },
    "/api/webhooks/:id/rotate-secret": { params: { id: aEndpoint } },
    "/api/webhooks/:id/deliveries": { params: { id: aEndpoint } },
    "/api/webhooks/:id/redeliver": { params: { id: aEndpoint }, body: { event_id: aEvent } },
    "delete /api/sessions/:id": { params: { id: aSession } },
    "/api/messages/:id/feedback": { params: { id: aReply }, body: { rating: "up" } },
    "/api/conversations/:id/satisfaction": { params: { id: aResolved }, body: { score: 4 } },
    "/api/legal-holds/:id/release": { params: { id: aHold }, body: { reason: "A's matter is closed" } },
  };
  const resource = table[`${method} ${path}`] ?? table[path];
  if (!resource) throw new Error(`The isolation test does not know ${method} ${path}: add it to aResourceFor`);
  return resource;
};

describe("tenant isolation", () => {
  it("lists only the caller's own conversations", async () => {
    const res = await app.request("/api/conversations?limit=100", { key: b.apiKey });
    expect(res.body.total).toBe(1);
    expect(res.body.conversations.map((c: { id: string }) => c.id)).not.toContain(aConversation);
    const search = await app.request("/api/conversations?q=secret", { key: b.apiKey });
    expect(search.body.total).toBe(0);
    const graphql = await app.graphql(ConversationsDocument, { limit: 100 }, b.apiKey);
    expect(graphql.data?.conversations.items.map((c) => c.id)).not.toContain(aConversation);
  });

  it("answers 404 on every REST route with a path parameter when it names another tenant's resource", async () => {
    const routes = restRoutes(app.services).filter((r) => r.path.includes(":") && r.auth !== "self");
    expect(routes.length).toBeGreaterThan(0);
    for (const route of routes) {
      const { params, body } = aResourceFor(route.method, route.path);
      const path = route.path.replace(/:(\w+)/g, (_m, name: string) => params[name] ?? "");
      // B first: the resource still exists (a DELETE as A would remove it), so B's 404 is isolation, not absence.
      const asB = await app.request(path, { method: route.method.toUpperCase(), key: b.apiKey, body });
      expect(asB.status, `${route.method} ${path} as B`).toBe(404);
      expect(asB.body.code).toBe("NOT_FOUND");
      const asA = await app.request(path, { method: route.method.toUpperCase(), key: a.apiKey, body });
      expect(asA.status, `${route.method} ${path} as A`).toBeLessThan(400);
    }
  });

  it("answers NOT_FOUND on every GraphQL field that takes another tenant's id, and changes nothing", async () => {
    const notFound = async (result: Promise<{ errors?: Array<{ extensions?: { code?: string } }> }>) =>
      expect((await result).errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    await notFound(app.graphql(ConversationDocument, { id: aConversation }, b.apiKey));
    await notFound(app.graphql(RevokeApiKeyDocument, { id: aKeyId }, b.apiKey));
    await notFound(app.graphql(RetryJobDocument, { id: aJob }, b.apiKey));
    const aIntent = (await app.graphql(CreateIntentForTestDocument, { name: "a_only", examples: ["hello"] }, a.apiKey)).data!
      .createIntent.id;
    await notFound(app.graphql(UpdateIntentForTestDocument, { id: aIntent, name: "stolen" }, b.apiKey));
    await notFound(app.graphql(DeleteIntentForTestDocument, { id: aIntent }, b.apiKey));
    expect((await app.request(`/api/intents?id=${aIntent}`, { method: "DELETE", key: b.apiKey })).status).toBe(404);
    expect((await app.request("/api/intents", { method: "PUT", key: b.apiKey, body: { id: aIntent, name: "x" } })).status).toBe(
      404,
    );
    expect((await app.services.db.prisma.intent.findUniqueOrThrow({ where: { id: aIntent } })).name).toBe("a_only");
    const aSource = (await app.graphql(AddManualSourceForTestDocument, { title: "A's FAQ", content: "Only for A." }, a.apiKey))
      .data!.addKnowledgeSource.id;
    await notFound(app.graphql(KnowledgeSourceForTestDocument, { id: aSource }, b.apiKey));
    await notFound(app.graphql(SyncKnowledgeSourceForTestDocument, { id: aSource }, b.apiKey));
    await notFound(app.graphql(DeleteKnowledgeSourceForTestDocument, { id: aSource }, b.apiKey));
    expect((await app.services.db.prisma.knowledgeSource.findUniqueOrThrow({ where: { id: aSource } })).status).toBe("ready");
    const aVoice = (await app.graphql(SaveVoiceForTestDocument, { name: "Polly.Amy", language: "en-GB" }, a.apiKey)).data!
      .saveVoice.id;
    await notFound(app.graphql(SaveVoiceForTestDocument, { id: aVoice, selected: false }, b.apiKey));
    await notFound(app.graphql(DeleteVoiceForTestDocument, { id: aVoice }, b.apiKey));
    expect((await app.services.db.prisma.voice.findUniqueOrThrow({ where: { id: aVoice } })).selected).toBe(true);
    const bChannelRef = await app.graphql(SaveChannelForTestDocument, { ref: "chatapp", credentials: {} }, b.apiKey);
    expect(bChannelRef.errors?.[0]?.extensions?.code).toBe("VALIDATION");
    const second = await app.graphql(
      SaveChannelForTestDocument,
      {
        ref: "messenger",
        credentials: {
          page_id: "320000000000001",
          access_token: "EAAB-a-page-token",
          verify_token: "a-verify-2",
          app_secret: "a-app-secret",
        },
      },
      a.apiKey,
    );
    const aSecondChannel = second.data!.saveChannel.channel.id;
    await notFound(app.graphql(ChannelForTestDocument, { ref: aSecondChannel }, b.apiKey));
    await notFound(app.graphql(SaveChannelForTestDocument, { ref: aSecondChannel, enabled: false }, b.apiKey));
    await notFound(app.graphql(DeleteChannelForTestDocument, { id: aSecondChannel }, b.apiKey));
    expect((await app.services.db.prisma.channel.findUniqueOrThrow({ where: { id: aSecondChannel } })).enabled).toBe(true);
    expect((await app.request("/api/conversations", { key: a.apiKey })).status).toBe(200);
    expect((await app.services.db.prisma.job.findUniqueOrThrow({ where: { id: aJob } })).status).toBe("dead");

    const aAgent = (await app.graphql(CreateAgentForTestDocument, { name: "A's agent", email: "agent@a.example" }, a.apiKey))
      .data!.createAgent.id;
    await notFound(app.graphql(AgentForTestDocument, { id: aAgent }, b.apiKey));
    await notFound(app.graphql(UpdateAgentForTestDocument, { id: aAgent, role: "viewer", active: false }, b.apiKey));
    expect(
      (await app.request("/api/agents", { method: "PUT", key: b.apiKey, body: { id: aAgent, role: "viewer" } })).status,
    ).toBe(404);
    const aTeam = (await app.graphql(CreateTeamForTestDocument, { name: "A team", memberIds: [aAgent] }, a.apiKey)).data!
      .createTeam.id;
    await notFound(app.graphql(UpdateTeamForTestDocument, { id: aTeam, name: "stolen" }, b.apiKey));
    await notFound(app.graphql(DeleteTeamForTestDocument, { id: aTeam }, b.apiKey));
    await notFound(app.graphql(CreateTeamForTestDocument, { name: "B team", memberIds: [aAgent] }, b.apiKey));
    await notFound(app.graphql(CreateAgentForTestDocument, { name: "B", email: "b@b.example", teamIds: [aTeam] }, b.apiKey));
    const aEscalation = (await app.request(`/api/escalations?limit=100`, { key: a.apiKey })).body.escalations.find(
      (e: { conversation_id: string }) => e.conversation_id === aEscalated,
    ).id as string;
    await notFound(app.graphql(EscalationForTestDocument, { id: aEscalation }, b.apiKey));
    await notFound(app.graphql(UpdateEscalationForTestDocument, { id: aEscalation, status: "resolved" }, b.apiKey));
    expect(
      (await app.request("/api/escalations", { method: "PUT", key: b.apiKey, body: { id: aEscalation, status: "resolved" } }))
        .status,
    ).toBe(404);
    await notFound(app.graphql(CreateEscalationForTestDocument, { conversationId: aConversation }, b.apiKey));
    await notFound(app.graphql(ReplyForTestDocument, { conversationId: aEscalated, content: "hi" }, b.apiKey));
    await notFound(app.graphql(AddNoteForTestDocument, { conversationId: aConversation, content: "B's note" }, b.apiKey));
    const bConversation = await seedConversation(app.services, b.tenantId, { channel: "api" });
    await notFound(app.graphql(CreateEscalationForTestDocument, { conversationId: bConversation, teamId: aTeam }, b.apiKey));
    const bEscalation = (await app.graphql(CreateEscalationForTestDocument, { conversationId: bConversation }, b.apiKey)).data!
      .createEscalation.id;
    await notFound(app.graphql(UpdateEscalationForTestDocument, { id: bEscalation, assigneeId: aAgent }, b.apiKey));
    expect((await app.request(`/api/escalations?assignee_id=${aAgent}`, { key: b.apiKey })).body.total).toBe(0);
    expect((await app.request(`/api/agents?team_id=${aTeam}`, { key: b.apiKey })).body.total).toBe(0);
    expect(await app.services.db.prisma.user.findUniqueOrThrow({ where: { id: aAgent } })).toMatchObject({
      role: "agent",
      deactivatedAt: null,
    });
    expect((await app.services.db.prisma.team.findUniqueOrThrow({ where: { id: aTeam } })).name).toBe("A team");
    expect((await app.services.db.prisma.escalation.findUniqueOrThrow({ where: { id: aEscalation } })).status).toBe("open");

    const aOwnCase = (
      await app.graphql(CreateEvaluationCaseForTestDocument, { question: "A's own question?", expect: "decline" }, a.apiKey)
    ).data!.createEvaluationCase.id;
    await notFound(app.graphql(UpdateEvaluationCaseForTestDocument, { id: aOwnCase, question: "stolen?" }, b.apiKey));
    await notFound(app.graphql(DeleteEvaluationCaseForTestDocument, { id: aOwnCase }, b.apiKey));
    await notFound(app.graphql(EvaluationRunForTestDocument, { id: aRun }, b.apiKey));
    expect((await app.services.db.prisma.evaluationCase.findUniqueOrThrow({ where: { id: aOwnCase } })).question).toBe(
      "A's own question?",
    );

    const gql = (query: string) => app.request("/graphql", { key: b.apiKey, body: { query } }).then((r) => r.body);
    await notFound(gql(`{ webhookEndpoint(id: "${aEndpoint}") { id } }`));
    await notFound(gql(`{ webhookDeliveries(endpointId: "${aEndpoint}") { total } }`));
    await notFound(gql(`mutation { updateWebhookEndpoint(id: "${aEndpoint}", enabled: false) { id } }`));
    await notFound(gql(`mutation { rotateWebhookSecret(id: "${aEndpoint}") { secret } }`));
    await notFound(gql(`mutation { deleteWebhookEndpoint(id: "${aEndpoint}") { deleted } }`));
    await notFound(gql(`mutation { redeliverWebhookEvent(endpointId: "${aEndpoint}", eventId: "${aEvent}") { jobId } }`));
    const bEndpoint = (
      await app.request("/api/webhooks", {
        key: b.apiKey,
        body: { url: "https://hooks.bank-b.example/", event_types: ["message.sent"] },
      })
    ).body.id;
    await notFound(gql(`mutation { redeliverWebhookEvent(endpointId: "${bEndpoint}", eventId: "${aEvent}") { jobId } }`));
    expect((await app.request("/api/webhook-events", { key: b.apiKey })).body.total).toBe(0);
    expect((await app.services.db.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: aEndpoint } })).enabled).toBe(true);
    const aSignedIn = await sessionOfA();
    await notFound(app.graphql(SessionsDocument, { agentId: aSignedIn.agentId }, b.apiKey));
    await notFound(app.graphql(RevokeSessionDocument, { id: aSignedIn.sessionId }, b.apiKey));
    await notFound(app.graphql(RevokeSessionsDocument, { agentId: aSignedIn.agentId }, b.apiKey));
    await notFound(app.graphql(ResetAgentMfaDocument, { agentId: aSignedIn.agentId }, b.apiKey));
    expect(
      (await app.services.db.prisma.userSession.findUniqueOrThrow({ where: { id: aSignedIn.sessionId } })).revokedAt,
    ).toBeNull();
    await notFound(app.graphql(RateMessageForTestDocument, { messageId: aReply, rating: "down" }, b.apiKey));
    await notFound(app.graphql(RateConversationForTestDocument, { conversationId: aResolved, score: 1 }, b.apiKey));
    expect(await app.services.db.prisma.messageFeedback.count({ where: { messageId: aReply, rating: "down" } })).toBe(0);
    expect(await app.services.db.prisma.satisfactionSurvey.count({ where: { conversationId: aResolved, score: 1 } })).toBe(0);

    const aOwnHold = (
      await app.request("/api/legal-holds", { key: a.apiKey, body: { conversation_id: aConversation, reason: "A's" } })
    ).body.id;
    await notFound(gql(`mutation { releaseLegalHold(id: "${aOwnHold}", reason: "B wants it gone") { id } }`));
    await notFound(gql(`mutation { placeLegalHold(conversationId: "${aConversation}", reason: "B's hold") { id } }`));
    expect((await app.services.db.prisma.legalHold.findUniqueOrThrow({ where: { id: aOwnHold } })).releasedAt).toBeNull();

    // Every field with an ID argument must be covered above: a new one fails here until it is.
    const covered = new Set([
      "conversation",
      "conversationMessages",
      "revokeApiKey",
      "retryJob",
      "updateIntent",
      "deleteIntent",
      "knowledgeSource",
      "syncKnowledgeSource",
      "deleteKnowledgeSource",
      "saveVoice",
      "deleteVoice",
      "deleteChannel",
      "agent",
      "updateAgent",
      "updateTeam",
      "deleteTeam",
      "escalation",
      "createEscalation",
      "updateEscalation",
      "replyToConversation",
      "addNote",
      "updateEvaluationCase",
      "deleteEvaluationCase",
      "evaluationRun",
      "webhookEndpoint",
      "webhookDeliveries",
      "updateWebhookEndpoint",
      "rotateWebhookSecret",
      "deleteWebhookEndpoint",
      "redeliverWebhookEvent",
      "revokeSession",
      "resetAgentMfa",
      "rateMessage",
      "rateConversation",
      "releaseLegalHold",
    ]);
    const withIds = [schema.getQueryType(), schema.getMutationType()].flatMap((type) =>
      Object.values(type?.getFields() ?? {})
        .filter((f) =>
          f.args.some(
            (arg) => isNonNullType(arg.type) && isScalarType(getNamedType(arg.type)) && getNamedType(arg.type).name === "ID",
          ),
        )
        .map((f) => f.name),
    );
    // Asked before anyone signs in, by design for any tenant: it tells no more than /auth/oidc/<tenant>/start
    // (test/agents/oidc.test.ts).
    const publicByDesign = new Set(["signInProvider"]);
    expect(withIds.filter((name) => !covered.has(name) && !publicByDesign.has(name))).toEqual([]);
  });

  it("lists only the caller's own API keys and jobs, and updates only its own tenant", async () => {
    const keys = await app.graphql(ApiKeysDocument, {}, b.apiKey);
    expect(keys.data?.apiKeys.map((k) => k.id)).not.toContain(aKeyId);
    const jobs = await app.graphql(JobsDocument, { status: "dead" }, b.apiKey);
    expect(jobs.data?.jobs.total).toBe(0);
    await app.graphql(UpdateTenantDocument, { name: "Bank B renamed", rateLimitMax: 5 }, b.apiKey);
    const aTenant = await app.graphql(TenantDocument, {}, a.apiKey);
    expect(aTenant.data?.tenant).toMatchObject({ id: a.tenantId, name: "Bank A" });
    expect(aTenant.data?.tenant.rateLimit.max).toBe(120);
  });

  it("scopes every data operation of the tenant client, writes included", async () => {
    const asB = scopeToTenant(app.services.db.prisma, b.tenantId);
    expect(await asB.conversation.findUnique({ where: { id: aConversation } })).toBeNull();
    expect(await asB.message.count({ where: { conversationId: aConversation } })).toBe(0);
    expect((await asB.conversation.updateMany({ where: { id: aConversation }, data: { status: "closed" } })).count).toBe(0);
    expect((await asB.message.deleteMany({ where: { conversationId: aConversation } })).count).toBe(0);
    await expect(asB.conversation.update({ where: { id: aConversation }, data: { status: "closed" } })).rejects.toThrow();
    await expect(asB.conversation.delete({ where: { id: aConversation } })).rejects.toThrow();
    const created = await asB.conversation.create({ data: { id: "conv_isolation_probe", tenantId: a.tenantId, channel: "api" } });
    expect(created.tenantId).toBe(b.tenantId);
    const untouched = await app.services.db.prisma.conversation.findUniqueOrThrow({ where: { id: aConversation } });
    expect(untouched.status).toBe("open");
    expect(await app.services.db.prisma.message.count({ where: { conversationId: aConversation } })).toBe(1);
  });

  it("keeps each tenant's scoped client, never one tenant's for another", async () => {
    const { prisma } = app.services.db;
    const asA = scopeToTenant(prisma, a.tenantId);
    expect(scopeToTenant(prisma, a.tenantId)).toBe(asA);
    const asB = scopeToTenant(prisma, b.tenantId);
    expect(asB).not.toBe(asA);
    expect(await asA.conversation.findUnique({ where: { id: aConversation } })).not.toBeNull();
    expect(await scopeToTenant(prisma, b.tenantId).conversation.findUnique({ where: { id: aConversation } })).toBeNull();
  });
});
