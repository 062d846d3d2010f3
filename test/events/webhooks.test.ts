import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { verifyParleyWebhook } from "../../docs/webhooks/verify.mjs";
import { Egress } from "../../src/http/egress.js";
import { type FakeProviders, startFakeProviders } from "../fakes/providers.js";
import { startWebhookReceiver, type WebhookReceiver } from "../fakes/webhook-receiver.js";
import { addAgent } from "../helpers/agents.js";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { chatappMessageEvent, configureChannel, metaSignature } from "../helpers/channels.js";
import { repoRoot } from "../helpers/process.js";

let app: TestApp;
let receiver: WebhookReceiver;
let providers: FakeProviders;
let bank: { tenantId: string; apiKey: string };
/** Each endpoint's signing secret, by the receiver path it was registered with. */
const secrets = new Map<string, string>();

beforeAll(async () => {
  providers = await startFakeProviders();
  // The receiver is on 127.0.0.1, which only the operator can open to tenants' URLs; four attempts, quickly.
  app = await startTestApp({
    ...providers.env,
    EGRESS_ALLOW_CIDRS: "127.0.0.1/32",
    WEBHOOK_RETRY_SCHEDULE_S: "0.05,0.1,0.2",
    SEND_MAX_ATTEMPTS: "2",
  });
  app.startWorker();
  receiver = await startWebhookReceiver();
  bank = await app.tenant("Notified Bank");
});
afterAll(async () => {
  await app?.close();
  await receiver?.close();
  await providers?.close();
});

async function register(path: string, eventTypes: string[], key = bank.apiKey) {
  const res = await app.request("/api/webhooks", {
    key,
    body: { url: `${receiver.url}${path}`, event_types: eventTypes },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  receiver.trust(path, res.body.secret);
  secrets.set(path, res.body.secret);
  return res.body as { id: string; secret: string };
}

const deliveries = async (endpointId: string) =>
  (await app.request(`/api/webhooks/${endpointId}/deliveries?limit=100`, { key: bank.apiKey })).body.deliveries as Array<
    Record<string, any>
  >;

const endpoint = async (id: string) => (await app.request(`/api/webhooks/${id}`, { key: bank.apiKey })).body;

function pythonAvailable(): boolean {
  try {
    return execFileSync("python3", ["-c", "print(1)"]).toString().trim() === "1";
  } catch {
    return false;
  }
}

describe("event notifications", () => {
  it("sends each subscribed event as a signed POST that the documented Node snippet verifies", async () => {
    const crm = await register("/crm", ["conversation.created", "message.received", "message.sent"]);
    expect(crm.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(await endpoint(crm.id)).toMatchObject({ url: `${receiver.url}/crm`, enabled: true, disabled_reason: null });
    expect(JSON.stringify(await endpoint(crm.id))).not.toContain(crm.secret);
    const audited = await app.request(`/api/audit?target_id=${crm.id}`, { key: bank.apiKey });
    expect(audited.body.records[0]).toMatchObject({ action: "webhookEndpoint.create", after: { url: `${receiver.url}/crm` } });
    expect(audited.body.records[0].after.secret).toMatch(/^\[secret [0-9a-f]{12}\]$/);
    expect(JSON.stringify(audited.body)).not.toContain(crm.secret.slice(6));

    const chat = await app.request("/api/chat", { key: bank.apiKey, body: { message: "How do I reset my PIN?" } });
    expect(chat.status).toBe(200);
    const received = await receiver.waitFor((r) => r.path === "/crm", 3);
    expect(received.map((r) => r.error)).toEqual([null, null, null]);
    const byType = Object.fromEntries(received.map((r) => [r.event!.type, r.event!]));
    expect(Object.keys(byType).sort()).toEqual(["conversation.created", "message.received", "message.sent"]);
    expect(byType["conversation.created"]!.data.conversation).toMatchObject({ id: chat.body.conversationId, channel: "api" });
    expect(byType["message.received"]!.data.message).toMatchObject({ role: "customer", content: "How do I reset my PIN?" });
    expect(byType["message.sent"]!.data.message).toMatchObject({ id: chat.body.messageId, role: "assistant" });
    for (const r of received) {
      expect(r.headers["content-type"]).toBe("application/json");
      expect(r.headers["webhook-id"]).toBe(r.event!.id);
      expect(r.event!.tenant_id).toBe(bank.tenantId);
    }

    // Each event is listed with the id its deliveries carry, and each attempt is in the endpoint's log.
    const events = await app.request("/api/webhook-events?limit=100", { key: bank.apiKey });
    expect(events.body.events.map((e: { id: string }) => e.id).sort()).toEqual(received.map((r) => r.event!.id).sort());
    await vi.waitFor(async () => expect(await deliveries(crm.id)).toHaveLength(3), { timeout: 10_000 });
    for (const d of await deliveries(crm.id)) {
      expect(d).toMatchObject({ status: "succeeded", http_status: 200, attempt: 1, response_excerpt: "received", error: null });
      expect(d.latency_ms).toBeGreaterThanOrEqual(0);
    }

    const metrics = await app.request("/metrics");
    expect(metrics.body).toMatch(/parley_webhook_deliveries_total\{outcome="succeeded"\} [3-9]/);

    // Another secret, a stale timestamp or a changed body are refused by the same snippet.
    const first = received[0]!;
    const other = "whsec_b3RoZXIgc2VjcmV0IG9mIDI0IGJ5dGVzISE=";
    expect(() => verifyParleyWebhook(other, first.headers, first.raw)).toThrow(/invalid signature/);
    const later = (Number(first.headers["webhook-timestamp"]) + 301) * 1000;
    expect(() => verifyParleyWebhook(crm.secret, first.headers, first.raw, later)).toThrow(/replay window/);
    expect(() => verifyParleyWebhook(crm.secret, first.headers, `${first.raw} `)).toThrow(/invalid signature/);
  });

  it("reports a provider channel's reply as sent once the provider accepted it, and as failed when it refused it", async () => {
    const chatapp = await app.tenant("Chat App Bank");
    const credentials = {
      phone_number_id: "260000000000001",
      access_token: "EAAG-notified-token-0001",
      verify_token: "vt_notified",
      app_secret: "notified-app-secret",
    };
    await configureChannel(app, chatapp.apiKey, "chatapp", credentials);
    await register("/sends", ["message.sent", "message.failed"], chatapp.apiKey);
    const customerWrites = async (id: string, from: string) => {
      const body = chatappMessageEvent(credentials.phone_number_id, {
        from,
        id,
        timestamp: "1700000000",
        type: "text",
        text: { body: "Hello" },
      });
      const res = await app.request("/api/channels/chatapp", {
        body,
        headers: { "content-type": "application/json", "x-hub-signature-256": metaSignature(body, credentials.app_secret) },
      });
      expect(res.status).toBe(200);
    };

    await customerWrites("wamid.NOTIFIED1", "15557770001");
    const [sent] = await receiver.waitFor((r) => r.path === "/sends");
    expect(sent!.event).toMatchObject({
      type: "message.sent",
      data: { message: { role: "assistant" }, delivery: { status: "sent", attempts: 1, error: null } },
    });
    expect(providers.sends.some((s) => s.body.to === "15557770001")).toBe(true);

    providers.failNext({ status: 400, body: { error: { message: "Recipient phone number not in allowed list", code: 131030 } } });
    await customerWrites("wamid.NOTIFIED2", "15557770002");
    const [, failed] = await receiver.waitFor((r) => r.path === "/sends", 2);
    expect(failed!.event).toMatchObject({ type: "message.failed", data: { delivery: { status: "failed", attempts: 1 } } });
    expect(failed!.event!.data.delivery.error).toMatch(/not in allowed list/);
  });

  it("notifies the hand-off to a human, step by step, and knowledge sources as they end", async () => {
    const desk = await app.tenant("Help Desk Bank");
    const types = [
      "conversation.escalated",
      "conversation.assigned",
      "conversation.resolved",
      "knowledge.source_ready",
      "knowledge.source_failed",
    ];
    await register("/desk", types, desk.apiKey);
    const agent = await addAgent(app, desk.apiKey, { availability: "online" });
    const chat = await app.request("/api/chat", {
      key: desk.apiKey,
      body: { message: "I want to speak to a real person please" },
    });
    // Deliveries run side by side: they may arrive in either order.
    const handedOver = await receiver.waitFor((r) => r.path === "/desk", 2);
    const [escalated, assigned] = ["conversation.escalated", "conversation.assigned"].map((type) =>
      handedOver.find((r) => r.event!.type === type),
    );
    expect(escalated!.event).toMatchObject({
      type: "conversation.escalated",
      data: { conversation_id: chat.body.conversationId, escalation: { reason: "customer_request", status: "open" }, by: "ai" },
    });
    expect(assigned!.event).toMatchObject({
      type: "conversation.assigned",
      data: { conversation_id: chat.body.conversationId, assignee: { id: agent.id }, by: "system" },
    });
    const escalationId = escalated!.event!.data.escalation.id;
    const resolve = await app.request("/api/escalations", {
      method: "PUT",
      key: agent.token,
      body: { id: escalationId, status: "resolved" },
    });
    expect(resolve.status).toBe(200);
    const [, , resolved] = await receiver.waitFor((r) => r.path === "/desk", 3);
    expect(resolved!.event).toMatchObject({
      type: "conversation.resolved",
      data: { escalation: { id: escalationId, status: "resolved" }, by: agent.id },
    });

    const manual = await app.request("/api/knowledge/sources", {
      key: desk.apiKey,
      body: { type: "manual", title: "Cards FAQ", content: "To reset your card PIN, open the app and choose Cards." },
    });
    expect(manual.status).toBe(201);
    const unreachable = await app.request("/api/knowledge/sources", {
      key: desk.apiKey,
      body: { type: "url", source_url: `${receiver.url.replace(/:\d+$/, ":1")}/help` },
    });
    expect(unreachable.status).toBe(202);
    const ended = (await receiver.waitFor((r) => r.path === "/desk", 5)).slice(3).map((r) => r.event!);
    expect(ended.find((e) => e.type === "knowledge.source_ready")!.data.source).toMatchObject({
      id: manual.body.id,
      status: "ready",
      title: "Cards FAQ",
    });
    expect(ended.find((e) => e.type === "knowledge.source_failed")!.data.source).toMatchObject({
      id: unreachable.body.id,
      status: "failed",
      error: expect.stringMatching(/No page could be read/),
    });
  });

  it("is verified by the documented Python snippet as well", async (context) => {
    if (!pythonAvailable()) context.skip("python3 is not installed");
    const delivered = receiver.requests.find((r) => r.path === "/crm" && r.event)!;
    const script = [
      "import json, sys",
      `sys.path.insert(0, ${JSON.stringify(`${repoRoot}docs/webhooks`)})`,
      "from verify import verify_parley_webhook",
      "request = json.load(sys.stdin)",
      "print(verify_parley_webhook(request['secret'], request['headers'], request['body'].encode())['id'])",
    ].join("\n");
    const run = (secret: string) =>
      execFileSync("python3", ["-c", script], {
        input: JSON.stringify({ secret, headers: delivered.headers, body: delivered.raw }),
        stdio: ["pipe", "pipe", "pipe"],
      }).toString();
    expect(run(secrets.get("/crm")!).trim()).toBe(delivered.event!.id);
    expect(() => run("whsec_b3RoZXIgc2VjcmV0IG9mIDI0IGJ5dGVzISE=")).toThrow(/invalid signature/);
  });

  it("documents in the README exactly the snippets these tests run", () => {
    const readme = readFileSync(`${repoRoot}README.md`, "utf8");
    for (const file of ["verify.mjs", "verify.py"]) {
      expect(readme, file).toContain(readFileSync(`${repoRoot}docs/webhooks/${file}`, "utf8").trimEnd());
    }
  });

  it("retries a failing endpoint with backoff, then disables it with a notice, and redelivers on request", async () => {
    const watcher = await register("/ops", ["webhook.endpoint_disabled"]);
    const failing = await register("/down", ["conversation.created"]);
    receiver.respond("/down", 503);
    const chat = await app.request("/api/chat", { key: bank.apiKey, body: { message: "Hello there" } });
    expect(chat.status).toBe(200);

    // Four attempts (the first and three retries), then the endpoint is disabled: nothing reached it.
    const attempts = await receiver.waitFor((r) => r.path === "/down", 4);
    expect(new Set(attempts.map((r) => r.headers["webhook-id"])).size).toBe(1);
    expect(attempts.every((r) => r.error === null)).toBe(true);
    const gaps = attempts.slice(1).map((r, i) => r.at - attempts[i]!.at);
    expect(gaps[2]).toBeGreaterThanOrEqual(150);
    await vi.waitFor(async () => expect((await endpoint(failing.id)).enabled).toBe(false), { timeout: 10_000 });
    expect((await endpoint(failing.id)).disabled_reason).toMatch(/deliveries failed since .* HTTP 503/);
    const log = await deliveries(failing.id);
    expect(log.map((d) => [d.attempt, d.status, d.http_status])).toEqual([
      [4, "failed", 503],
      [3, "failed", 503],
      [2, "failed", 503],
      [1, "failed", 503],
    ]);
    expect(log[0]!.next_attempt_at).toBeNull();
    expect(log.slice(1).every((d) => d.next_attempt_at !== null)).toBe(true);
    expect(log[0]!.response_excerpt).toBe("endpoint unavailable");

    // The notice: an event to the tenant's other endpoints, listed in the API, and a record in the audit trail.
    const [notice] = await receiver.waitFor((r) => r.path === "/ops");
    expect(notice!.event).toMatchObject({ type: "webhook.endpoint_disabled", data: { endpoint: { id: failing.id } } });
    const listed = await app.request("/api/webhook-events?type=webhook.endpoint_disabled", { key: bank.apiKey });
    expect(listed.body.events[0].id).toBe(notice!.event!.id);
    const audit = await app.request(`/api/audit?target_id=${failing.id}&action=webhookEndpoint.disable`, { key: bank.apiKey });
    expect(audit.body.records[0]).toMatchObject({ actor_kind: "system", details: { reason: expect.stringMatching(/HTTP 503/) } });
    expect(watcher.id).not.toBe(failing.id);

    // Disabled, it is sent nothing; enabled again, a redelivery sends the missed event with its id.
    const eventId = attempts[0]!.headers["webhook-id"] as string;
    const refused = await app.request(`/api/webhooks/${failing.id}/redeliver`, { key: bank.apiKey, body: { event_id: eventId } });
    expect(refused.status).toBe(422);
    receiver.respond("/down", 200);
    const enabled = await app.request(`/api/webhooks/${failing.id}`, {
      method: "PUT",
      key: bank.apiKey,
      body: { enabled: true },
    });
    expect(enabled.body).toMatchObject({ enabled: true, disabled_at: null, disabled_reason: null });
    const redelivered = await app.request(`/api/webhooks/${failing.id}/redeliver`, {
      key: bank.apiKey,
      body: { event_id: eventId },
    });
    expect(redelivered.status).toBe(202);
    expect(redelivered.body.job_id).toMatch(/^job_/);
    const again = await receiver.waitFor((r) => r.path === "/down", 5);
    expect(again[4]!.headers["webhook-id"]).toBe(eventId);
    expect(again[4]!.event!.data.conversation.id).toBe(chat.body.conversationId);
    await vi.waitFor(async () => expect((await deliveries(failing.id))[0]).toMatchObject({ status: "succeeded", attempt: 1 }), {
      timeout: 10_000,
    });
  });

  it("refuses internal addresses when saved, and when a name resolves to one at delivery time", async () => {
    for (const url of ["http://10.0.0.7/hooks", "http://169.254.169.254/latest", "http://[::1]:8080/", "ftp://example.com/x"]) {
      const res = await app.request("/api/webhooks", { key: bank.apiKey, body: { url, event_types: ["message.sent"] } });
      expect(res.status, url).toBe(422);
      expect(res.body.code).toBe("VALIDATION");
    }
    const withUser = await app.request("/api/webhooks", {
      key: bank.apiKey,
      body: { url: "https://user:pass@example.com/", event_types: ["message.sent"] },
    });
    expect(withUser.status).toBe(422);
    for (const url of ["not a url", "é".repeat(300), "https://"]) {
      const res = await app.request("/api/webhooks", { key: bank.apiKey, body: { url, event_types: ["message.sent"] } });
      expect(res.status, url).toBe(422);
      expect(res.body).toMatchObject({ code: "VALIDATION", details: [expect.objectContaining({ path: "url" })] });
    }

    // A host name is checked when the connection is made: here it resolves to an intranet address.
    const egress = app.services.egress;
    app.services.egress = new Egress({
      allowCidrs: ["127.0.0.1/32"],
      resolver: async () => [{ address: "10.20.30.40", family: 4 }],
    });
    try {
      const res = await app.request("/api/webhooks", {
        key: bank.apiKey,
        body: { url: "http://hooks.intranet.example/parley", event_types: ["conversation.created"] },
      });
      expect(res.status).toBe(201);
      await app.request("/api/chat", { key: bank.apiKey, body: { message: "Hi" } });
      await vi.waitFor(async () => expect((await endpoint(res.body.id)).enabled).toBe(false), { timeout: 10_000 });
      const [attempt] = await deliveries(res.body.id);
      expect(attempt).toMatchObject({ status: "failed", http_status: null, attempt: 1, next_attempt_at: null });
      expect(attempt!.error).toMatch(/resolves to 10\.20\.30\.40, a private or reserved address/);
    } finally {
      await app.services.egress.close();
      app.services.egress = egress;
    }
  });

  it("costs a tenant without endpoints no statement, and learns of a new endpoint at once", async () => {
    const quiet = await app.tenant("Quiet Bank");
    const statements: string[] = [];
    const record = () =>
      app.services.db.prisma.$transaction((tx) => {
        const counted = new Proxy(tx, {
          get: (target, property, receiver) =>
            property === "$queryRaw" || property === "$executeRaw"
              ? (...args: [TemplateStringsArray, ...unknown[]]) => {
                  statements.push(args[0].join("?").trim().split(/\s+/)[0]!);
                  return (Reflect.get(target, property, receiver) as (...a: unknown[]) => unknown).apply(target, args);
                }
              : Reflect.get(target, property, receiver),
        });
        return app.services.events.record(counted, quiet.tenantId, "message.sent", { message: { id: "msg_probe" } });
      });
    expect(await record()).toBeNull();
    expect(statements).toEqual(["SELECT"]);
    expect(await record()).toBeNull();
    expect(statements).toEqual(["SELECT"]);
    const created = await app.request("/api/webhooks", {
      key: quiet.apiKey,
      body: { url: `${receiver.url}/quiet`, event_types: ["message.sent"] },
    });
    expect(created.status).toBe(201);
    expect(await record()).toMatch(/^wev_/);
    expect(statements).toEqual(["SELECT", "SELECT", "WITH"]);
  });

  it("is managed by owners and admins only", async () => {
    const admin = await app.keyFor(bank.tenantId, "admin");
    expect((await app.request("/api/webhooks", { key: admin })).status).toBe(200);
    for (const role of ["agent", "viewer"] as const) {
      const key = await app.keyFor(bank.tenantId, role);
      for (const [path, body] of [
        ["/api/webhooks", undefined],
        ["/api/webhooks", { url: `${receiver.url}/x`, event_types: ["message.sent"] }],
        ["/api/webhook-events", undefined],
      ] as const) {
        const res = await app.request(path, { key, body });
        expect(res.status, `${role} ${path}`).toBe(403);
        expect(res.body.code).toBe("FORBIDDEN");
      }
    }
    const bad = await app.request("/api/webhooks", { key: admin, body: { url: `${receiver.url}/x`, event_types: ["no.such"] } });
    expect(bad.status).toBe(422);
  });
});
