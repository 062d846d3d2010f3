import { print } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordHash } from "../../src/audit/chain.js";
import { LoginDocument } from "../generated.js";
import { addAgent } from "../helpers/agents.js";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { runScript } from "../helpers/process.js";

let app: TestApp;
let bank: { tenantId: string; apiKey: string };
let owner: string;
let ownerPrefix: string;

const accessToken = "EAAG-first-access-token-0001";
const rotatedToken = "EAAG-rotated-access-token-0002";
const appSecret = "chatapp-app-secret-value";

beforeAll(async () => {
  app = await startTestApp();
  bank = await app.tenant("Audited Bank");
  owner = await app.keyFor(bank.tenantId, "owner");
  ownerPrefix = owner.slice(0, 12);
});
afterAll(() => app?.close());

const audit = async (query: string, key = owner) => {
  const res = await app.request(`/api/audit?limit=100&${query}`, { key });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.records as Array<Record<string, any>>;
};

const gql = (query: string, variables: Record<string, unknown> = {}, key: string | null = owner) =>
  app.request("/graphql", { key, body: { query, variables } });

describe("the audit trail", () => {
  it("records a change with who made it, from where, and before and after, secrets shown only as fingerprints", async () => {
    const save = (credentials: Record<string, string>) =>
      app.request("/api/tenant/channels/chatapp", { method: "PUT", key: owner, body: { credentials } });
    expect(
      (
        await save({
          phone_number_id: "510000000000001",
          access_token: accessToken,
          verify_token: "verify-me",
          app_secret: appSecret,
        })
      ).status,
    ).toBe(201);
    expect((await save({ access_token: rotatedToken })).status).toBe(200);

    const [changed, created] = await audit("action=channel.save");
    expect(created).toMatchObject({
      actor_kind: "apiKey",
      actor_label: ownerPrefix,
      actor_role: "owner",
      target_type: "channel",
      before: null,
      after: { type: "chatapp", credentials: { phone_number_id: "510000000000001" } },
    });
    expect(created!.ip).toMatch(/127\.0\.0\.1$/);
    expect(Date.parse(created!.created_at)).toBeGreaterThan(Date.now() - 60_000);
    expect(created!.after.credentials.access_token).toMatch(/^\[secret [0-9a-f]{12}\]$/);
    expect(changed!.target_id).toBe(created!.target_id);
    expect(changed!.before).toEqual(created!.after);
    // The rotated token shows as a different fingerprint; the secret left alone as the same one.
    expect(changed!.after.credentials.access_token).not.toBe(changed!.before.credentials.access_token);
    expect(changed!.after.credentials.app_secret).toBe(changed!.before.credentials.app_secret);

    const everything = JSON.stringify(await app.request("/api/audit/export", { key: owner }));
    for (const secret of [accessToken, rotatedToken, appSecret, "verify-me"]) expect(everything).not.toContain(secret);
  });

  it("records keys, settings and agents, and passwords only as fingerprints", async () => {
    const created = await gql('mutation { createApiKey(name: "CI", role: viewer) { key apiKey { id prefix } } }');
    const { key, apiKey } = created.body.data.createApiKey;
    await gql(`mutation { revokeApiKey(id: "${apiKey.id}") { id } }`);
    await gql('mutation { updateTenant(rateLimitMax: 77, persona: "Formal") { id } }');
    const agent = await app.request("/api/agents", {
      key: owner,
      body: { name: "Ama", email: "ama@audited.example", password: "a long passphrase 1" },
    });
    await app.request("/api/agents", { method: "PUT", key: owner, body: { id: agent.body.id, role: "admin" } });

    const [revoked, issued] = await audit(`target_id=${apiKey.id}`);
    expect(issued).toMatchObject({ action: "apiKey.create", after: { prefix: apiKey.prefix, role: "viewer", revokedAt: null } });
    expect(revoked).toMatchObject({ action: "apiKey.revoke", before: { revokedAt: null } });
    expect(revoked!.after.revokedAt).toEqual(expect.any(String));
    expect(JSON.stringify(issued)).not.toContain(key);

    const [settings] = await audit("action=settings.update");
    expect(settings!.before.settings).toEqual({});
    expect(settings!.after.settings).toEqual({ rateLimitMax: 77, persona: "Formal" });

    const [promoted, added] = await audit(`target_type=agent&target_id=${agent.body.id}`);
    expect(added).toMatchObject({ action: "agent.create", after: { email: "ama@audited.example", role: "agent" } });
    expect(added!.after.passwordHash).toMatch(/^\[secret [0-9a-f]{12}\]$/);
    expect(promoted).toMatchObject({ action: "agent.update", before: { role: "agent" }, after: { role: "admin" } });
  });

  it("records failed and succeeded logins with the address they came from", async () => {
    const agent = await addAgent(app, owner);
    const failed = await app.request("/graphql", {
      key: null,
      body: { query: print(LoginDocument), variables: { email: agent.email, password: "not the password at all" } },
    });
    expect(failed.body.errors[0].extensions.code).toBe("AUTH_INVALID");
    const logins = await audit("action=login.");
    const mine = logins.filter((r) => r.target_id === agent.id);
    expect(mine.map((r) => r.action)).toEqual(["login.failed", "login.succeeded"]);
    expect(mine[0]).toMatchObject({ actor_kind: "anonymous", actor_label: agent.email, target_type: "agent" });
    expect(mine[1]).toMatchObject({ actor_kind: "user", actor_id: agent.id, actor_label: agent.email, actor_role: "agent" });
    expect(mine[0]!.ip).toMatch(/127\.0\.0\.1$/);
  });

  it("is read by owners and admins of the tenant only", async () => {
    const agentKey = await app.keyFor(bank.tenantId, "agent");
    for (const path of ["/api/audit", "/api/audit/export", "/api/audit/verify"]) {
      const res = await app.request(path, { key: agentKey });
      expect(res.status, path).toBe(403);
      expect(res.body.code).toBe("FORBIDDEN");
    }
    const other = await app.tenant("Other Bank");
    const theirs = await app.request("/api/audit?limit=100", { key: other.apiKey });
    expect(theirs.body.records).toEqual([]);
    expect((await app.request("/api/audit", { key: null })).status).toBe(401);
  });

  it("offers no way to change or remove a record, and the database refuses it too", async () => {
    const mutations = await gql("{ __schema { mutationType { fields { name } } } }");
    const names = mutations.body.data.__schema.mutationType.fields.map((f: { name: string }) => f.name);
    expect(names.filter((n: string) => /audit/i.test(n))).toEqual([]);
    const [some] = await audit("");
    for (const statement of [
      `UPDATE audit_records SET action = 'nothing.happened' WHERE id = '${some!.id}'`,
      `DELETE FROM audit_records WHERE id = '${some!.id}'`,
      "TRUNCATE audit_records",
    ]) {
      await expect(app.services.db.sql.exec(statement), statement).rejects.toThrow(/append-only/);
    }
  });

  it("keeps one chain when many changes are recorded at once", async () => {
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, n) => gql(`mutation { updateTenant(crawlMaxPages: ${100 + n}) { id } }`)),
    );
    expect(results.every((r) => r.status === 200 && !r.body.errors)).toBe(true);
    const verified = await app.request("/api/audit/verify", { key: owner });
    expect(verified.body).toMatchObject({ ok: true, broken: null });
    const all = await audit("");
    expect(verified.body.checked).toBe(all.length);
    expect(all.map((r) => r.seq)).toEqual(all.map((_, i) => all.length - i));
  });

  it("exports every record as JSON or CSV, oldest first, and records the export", async () => {
    const total = (await app.request("/api/audit?limit=1", { key: owner })).body.total as number;
    const json = await app.request("/api/audit/export?format=json", { key: owner });
    expect(json.status).toBe(200);
    expect(json.headers.get("content-disposition")).toBe('attachment; filename="audit-trail.json"');
    const records = json.body as Array<Record<string, any>>;
    expect(records).toHaveLength(total);
    expect(records.map((r) => r.seq)).toEqual(records.map((_, i) => i + 1));
    const [exported] = await audit("action=audit.export");
    expect(exported).toMatchObject({ seq: total + 1, actor_label: ownerPrefix, details: { format: "json" } });
    // Anyone holding the export can check the chain with the documented serialisation, without the service.
    let previous = "0".repeat(64);
    for (const r of records) {
      expect(r.prev_hash).toBe(previous);
      const { id, seq, created_at, actor_kind, actor_id, actor_label, actor_role, ip, action, target_type, target_id } = r;
      const recomputed = recordHash({
        id,
        tenantId: bank.tenantId,
        seq,
        createdAt: created_at,
        actorKind: actor_kind,
        actorId: actor_id,
        actorLabel: actor_label,
        actorRole: actor_role,
        ip,
        action,
        targetType: target_type,
        targetId: target_id,
        before: r.before,
        after: r.after,
        details: r.details,
        prevHash: r.prev_hash,
      });
      expect(recomputed).toBe(r.hash);
      previous = r.hash;
    }

    const csv = await app.request("/api/audit/export?format=csv&action=login.", { key: owner });
    expect(csv.headers.get("content-type")).toMatch(/^text\/csv/);
    const lines = (csv.body as string).trimEnd().split("\r\n");
    expect(lines[0]).toBe(
      "id,seq,created_at,actor_kind,actor_id,actor_label,actor_role,ip,action,target_type,target_id,before,after,details,prev_hash,hash",
    );
    expect(lines.slice(1).every((line) => /,login\.(failed|succeeded),agent,/.test(line))).toBe(true);
    expect(lines).toHaveLength(1 + records.filter((r) => r.action.startsWith("login.")).length);
    expect((await app.request("/api/audit/export?format=xml", { key: owner })).status).toBe(422);
  });

  it("names the first record that was tampered with, in the API and the command", async () => {
    const [victim] = await audit("action=apiKey.create");
    const tamper = async (sql: string) =>
      app.services.db.sql.exec(
        `ALTER TABLE audit_records DISABLE TRIGGER audit_records_no_change; ${sql}; ALTER TABLE audit_records ENABLE TRIGGER audit_records_no_change`,
      );
    await tamper(`UPDATE audit_records SET after = jsonb_set(after, '{role}', '"owner"') WHERE id = '${victim!.id}'`);
    try {
      const verified = await app.request("/api/audit/verify", { key: owner });
      expect(verified.body).toMatchObject({ ok: false, broken: { id: victim!.id, seq: victim!.seq } });
      expect(verified.body.broken.reason).toMatch(/was changed/);
      const cli = runScript("src/cli/audit-verify.ts", ["--url", app.url, "--key", owner], {});
      expect(await cli.exit()).toBe(1);
      expect(cli.stdout()).toContain(`BROKEN at record ${victim!.id} (seq ${victim!.seq})`);
      if (app.database.url) {
        const direct = runScript("src/cli/audit-verify.ts", ["--tenant", bank.tenantId], { DATABASE_URL: app.database.url });
        expect(await direct.exit()).toBe(1);
        expect(direct.stdout()).toContain(`BROKEN at record ${victim!.id}`);
      }
    } finally {
      await tamper(`UPDATE audit_records SET after = '${JSON.stringify(victim!.after)}'::jsonb WHERE id = '${victim!.id}'`);
    }
    const cli = runScript("src/cli/audit-verify.ts", ["--url", app.url, "--key", owner], {});
    expect(await cli.exit()).toBe(0);
    expect(cli.stdout()).toMatch(/^OK: \d+ records, chain intact up to seq \d+\.\nLast hash: [0-9a-f]{64}\n$/);
  });
});
