import { openChannel } from "../channels/store.js";
import type { TenantDb } from "../db/tenant-scope.js";
import { subjectOf } from "../retention/identity.js";
import type { Services } from "../services.js";

/** What a snapshot reads with: the caller's tenant-scoped client, so that it sees only the caller's tenant. */
export interface AuditScope {
  db: TenantDb;
  services: Services;
  tenantId: string;
}

type Snapshot = (scope: AuditScope, id: string) => Promise<object | null>;

/**
 * Each kind of thing a change can be made to, and how it looks in an audit record's `before` and `after`: the
 * fields a reviewer needs, secrets included only to be replaced by their fingerprints (src/audit/record.ts).
 */
export const auditTargets = {
  apiKey: (s, id) =>
    s.db.apiKey.findUnique({ where: { id }, select: { id: true, name: true, prefix: true, role: true, revokedAt: true } }),
  channel: async (s, id) => {
    const row = await s.db.channel.findUnique({ where: { id } });
    if (!row) return null;
    const { credentials } = openChannel(s.services, row);
    const { id: channelId, type, name, enabled, routingKey, settings } = row;
    return { id: channelId, type, name, enabled, routingKey, settings, credentials };
  },
  tenant: (s) => s.db.tenant.findUnique({ where: { id: s.tenantId }, select: { id: true, name: true, settings: true } }),
  intent: async (s, id) => {
    const row = await s.db.intent.findUnique({ where: { id }, include: { _count: { select: { examples: true } } } });
    if (!row) return null;
    const { _count, tenantId: _t, createdAt: _c, updatedAt: _u, ...fields } = row;
    return { ...fields, examples: _count.examples };
  },
  knowledgeSource: (s, id) =>
    s.db.knowledgeSource.findUnique({
      where: { id },
      select: { id: true, type: true, title: true, sourceUrl: true, fileName: true, status: true, chunks: true },
    }),
  agent: async (s, id) => {
    const row = await s.db.user.findUnique({ where: { id }, include: { teams: { select: { teamId: true } } } });
    if (!row) return null;
    const { id: agentId, name, email, role, availability, maxConcurrent, deactivatedAt, passwordHash, mfaEnabledAt } = row;
    const teams = row.teams.map((t) => t.teamId).sort();
    const active = deactivatedAt === null;
    const mfa = mfaEnabledAt !== null;
    return { id: agentId, name, email, role, availability, maxConcurrent, active, mfa, teams, passwordHash };
  },
  team: async (s, id) => {
    const row = await s.db.team.findUnique({ where: { id }, include: { members: { select: { userId: true } } } });
    if (!row) return null;
    return { id: row.id, name: row.name, intents: row.intents, members: row.members.map((m) => m.userId).sort() };
  },
  voice: (s, id) =>
    s.db.voice.findUnique({
      where: { id },
      select: { id: true, name: true, language: true, speakingRate: true, greeting: true, selected: true },
    }),
  escalation: (s, id) =>
    s.db.escalation.findUnique({
      where: { id },
      select: { id: true, conversationId: true, status: true, priority: true, teamId: true, assigneeId: true, note: true },
    }),
  evaluationCase: (s, id) =>
    s.db.evaluationCase.findUnique({
      where: { id },
      select: { id: true, question: true, channel: true, expect: true, source: true, contains: true },
    }),
  evaluationRun: (s, id) =>
    s.db.evaluationRun.findUnique({
      where: { id },
      select: { id: true, trigger: true, status: true, cases: true, passed: true, accuracy: true },
    }),
  job: (s, id) => s.db.job.findUnique({ where: { id }, select: { id: true, queue: true, status: true, attempts: true } }),
  webhookEndpoint: async (s, id) => {
    const row = await s.db.webhookEndpoint.findUnique({ where: { id } });
    if (!row) return null;
    const { id: endpointId, url, description, eventTypes, enabled, disabledReason } = row;
    return { id: endpointId, url, description, eventTypes, enabled, disabledReason, secret: s.services.secrets.open(row.secret) };
  },
  session: (s, id) =>
    s.db.userSession.findUnique({
      where: { id },
      select: { id: true, userId: true, method: true, ipAddress: true, createdAt: true, revokedAt: true },
    }),
  oidcConfig: async (s) => {
    const row = await s.db.oidcConfig.findUnique({ where: { tenantId: s.tenantId } });
    if (!row) return null;
    const { issuer, clientId, allowedDomains, emailClaim, jitRole, enabled } = row;
    return {
      issuer,
      clientId,
      clientSecret: s.services.secrets.open(row.clientSecret),
      allowedDomains,
      emailClaim,
      jitRole,
      enabled,
    };
  },
  legalHold: async (s, id) => {
    const row = await s.db.legalHold.findUnique({ where: { id } });
    if (!row) return null;
    const {
      conversationId,
      channel,
      customerId,
      customerPhone,
      reason,
      placedBy,
      createdAt,
      releasedAt,
      releasedBy,
      releaseReason,
    } = row;
    const fingerprint = (secret: string) => s.services.secrets.fingerprint(secret);
    // The customer held, named as erasures name them: the trail never holds a customer's identifier.
    const customer = customerPhone
      ? subjectOf({ phone: customerPhone }, fingerprint)
      : channel && customerId
        ? subjectOf({ channel, customerId }, fingerprint)
        : null;
    return { id: row.id, conversationId, customer, reason, placedBy, createdAt, releasedAt, releasedBy, releaseReason };
  },
  // An erasure records its counts only: nothing of the customer is ever copied into the trail.
  customer: async () => null,
} satisfies Record<string, Snapshot>;

export type AuditTargetType = keyof typeof auditTargets;
