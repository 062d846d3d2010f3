import { z } from "zod";
import { publicBaseUrl } from "../config.js";
import type { Prisma } from "../db/generated/prisma/client.js";
import { newId } from "../db/ids.js";
import type { TenantDb } from "../db/tenant-scope.js";
import { AppError, notFound } from "../errors.js";
import { parseInput } from "../graphql/validate.js";
import type { Services } from "../services.js";
import type { ChannelSettings } from "./adapter.js";
import { channelTypes, findAdapter } from "./registry.js";
import { webhookTokenHash } from "./signatures.js";
import { openChannel } from "./store.js";

type ChannelRow = Prisma.ChannelGetPayload<object>;

const settingsInput = z
  .object({
    greeting: z.string().trim().max(500).nullish(),
    maxReplyChars: z.number().int().min(20).max(10_000).nullish(),
    provider: z.string().max(40).nullish(),
  })
  .catchall(z.union([z.string().max(2000), z.number(), z.boolean(), z.array(z.string().max(500)).max(100)]).nullish());

export const channelInput = z.object({
  name: z.string().trim().min(1).max(100).optional(),
  enabled: z.boolean().optional(),
  credentials: z.record(z.string(), z.string().nullable()).optional(),
  settings: settingsInput.optional(),
});
export type ChannelInput = z.infer<typeof channelInput>;

/** A secret as the dashboard shows it: enough to recognise, not enough to use. */
export function maskSecret(value: string): string {
  return value.length >= 12 ? `••••${value.slice(-4)}` : "••••";
}

/** The channel's credentials for reading: identifiers in clear, secrets masked. */
export function maskedCredentials(services: Pick<Services, "secrets">, row: ChannelRow): Record<string, string> {
  const adapter = findAdapter(row.type);
  const credentials = openChannel(services, row).credentials;
  return Object.fromEntries(
    Object.entries(credentials).map(([k, v]) => [k, adapter?.secretFields.includes(k) ? maskSecret(String(v)) : String(v)]),
  );
}

/** The row a dashboard reference points at: a channel id, or a type when the tenant has one channel of it. */
async function findByRef(db: TenantDb, ref: string): Promise<{ row: ChannelRow | null; type: string }> {
  if (ref.startsWith("chn_")) {
    const row = await db.channel.findUnique({ where: { id: ref } });
    if (!row) throw notFound("Channel");
    return { row, type: row.type };
  }
  if (!findAdapter(ref)) throw notFound("Channel");
  const rows = await db.channel.findMany({ where: { type: ref }, take: 2 });
  if (rows.length > 1) {
    throw new AppError("VALIDATION", `This tenant has several ${ref} channels: address one by its id`, [
      { path: "channelId", message: "ambiguous channel type" },
    ]);
  }
  return { row: rows[0] ?? null, type: ref };
}

export async function getChannel(db: TenantDb, ref: string): Promise<ChannelRow> {
  const { row } = await findByRef(db, ref);
  if (!row) throw notFound("Channel");
  return row;
}

function withoutNulls<T extends Record<string, unknown>>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null && v !== undefined)) as Partial<T>;
}

/** The value as the channel type's schema reads it, or 422 naming each offending field. */
function checked<T>(type: string, part: "credentials" | "settings", schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const details = parsed.error.issues.map((i) => ({ path: [part, ...i.path].join("."), message: i.message }));
  throw new AppError(
    "VALIDATION",
    `Invalid ${type} ${part}: ${details.map((d) => `${d.path} ${d.message}`).join("; ")}`,
    details,
  );
}

/**
 * Creates or changes a tenant's channel. Credentials merge into the stored ones (a secret is
 * changed without sending the others again; null removes a field) and are validated as a whole for
 * the channel type; the routing key follows from them. Saving claims the provider account the routing
 * key names and never tells whether another channel claims it too: a new or changed account is pending
 * until a signed delivery proves it (claims.ts).
 */
export async function saveChannel(
  { services, db, tenantId }: { services: Services; db: TenantDb; tenantId: string },
  ref: string,
  raw: unknown,
): Promise<{ row: ChannelRow; created: boolean }> {
  const input = parseInput(channelInput, raw);
  const { row: existing, type } = await findByRef(db, ref);
  const adapter = findAdapter(type)!;
  const stored = existing ? openChannel(services, existing) : null;
  const merged = Object.fromEntries(
    Object.entries({ ...stored?.credentials, ...input.credentials }).filter(([, v]) => v !== null && v !== ""),
  );
  const combined = withoutNulls({ ...stored?.settings, ...input.settings }) as ChannelSettings;
  const settings = adapter.settings ? checked(type, "settings", adapter.settings, combined) : combined;
  const credentials = checked(type, "credentials", adapter.credentialsFor?.(settings) ?? adapter.credentials, merged);
  const token = adapter.webhookTokenOf?.(credentials) ?? null;
  const routingKey = adapter.routingKeyOf(credentials, settings);
  const sameAccount =
    existing?.routingKey === routingKey && (existing.settings as ChannelSettings).provider === settings.provider;
  const data = {
    name: input.name ?? existing?.name ?? type,
    enabled: input.enabled ?? existing?.enabled ?? true,
    routingKey,
    // The proof stays with the account it proved; a claim on another account starts over.
    ...(sameAccount ? {} : { verifiedRoutingKey: null }),
    credentials: services.secrets.sealJson(credentials),
    webhookTokenHash: token ? webhookTokenHash(token) : null,
    settings: settings as Prisma.InputJsonObject,
  };
  const saved = existing
    ? { row: await db.channel.update({ where: { id: existing.id }, data }), created: false }
    : { row: await db.channel.create({ data: { id: newId("chn"), tenantId, type, ...data } }), created: true };
  services.tenants.changed(tenantId);
  return saved;
}

/**
 * Where the provider must send events: the address to paste in its console. Africa's Talking signs
 * nothing, so its callback URLs carry the channel's token, shown as a `{token}` placeholder: the
 * token itself is a secret and never read back.
 */
export function webhookUrl(services: Services, row: Pick<ChannelRow, "type" | "settings">): string | null {
  const base = publicBaseUrl(services.config);
  const paths: Record<string, string> = {
    chatapp: "/api/channels/chatapp",
    messenger: "/api/v1/channels/social/webhook",
    instagram: "/api/v1/channels/social/webhook",
    sms: "/api/channels/sms",
    ussd: "/api/channels/ussd",
    voice: "/api/v1/voice/inbound",
    botmsg: "/api/v1/channels/botmsg/webhook",
    microblog: "/api/channels/microblog",
    teamchat: "/api/v1/channels/teamchat/webhook",
  };
  const path = paths[row.type];
  if (!path) return null;
  const provider = (row.settings as ChannelSettings | null)?.provider;
  const tokenInUrl = row.type === "ussd" || (row.type === "sms" && provider === "africastalking");
  return `${base}${path}${tokenInUrl ? "?token={token}" : ""}`;
}

export { channelTypes };
