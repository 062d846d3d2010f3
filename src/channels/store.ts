import type { Prisma } from "../db/generated/prisma/client.js";
import type { Services } from "../services.js";
import type { ChannelSettings, ChannelType, ConfiguredChannel } from "./adapter.js";
import { webhookTokenHash } from "./signatures.js";

type ChannelRow = Prisma.ChannelGetPayload<object>;

/** A channel row with its credentials decrypted, for the webhook and send paths only. */
export function openChannel(services: Pick<Services, "secrets">, row: ChannelRow): ConfiguredChannel {
  return {
    id: row.id,
    tenantId: row.tenantId,
    type: row.type as ChannelType,
    routingKey: row.routingKey,
    enabled: row.enabled,
    credentials: row.credentials ? services.secrets.openJson<Record<string, string>>(row.credentials) : {},
    settings: (row.settings ?? {}) as ChannelSettings,
  };
}

/**
 * The enabled channel of these types whose webhook token this is. Tokens are the tenants' own choice and not
 * unique (saving never tells whether another channel has one): the oldest channel with it keeps it.
 */
export async function channelByToken(services: Services, types: ChannelType[], token: string) {
  const hash = webhookTokenHash(token);
  const row = await services.tenants.channelRows(`token:${types.join(",")}:${hash}`, () =>
    services.db.prisma.channel.findFirst({
      where: { type: { in: types }, webhookTokenHash: hash, enabled: true },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    }),
  );
  return row ? openChannel(services, row) : null;
}

export async function channelById(services: Services, id: string) {
  const row = await services.db.prisma.channel.findUnique({ where: { id } });
  return row ? openChannel(services, row) : null;
}

/** Every enabled channel of a type, across tenants: for provider checks that name no account (X's CRC, Slack's URL check). */
export async function enabledChannelsOf(services: Services, type: ChannelType) {
  const rows = await services.db.prisma.channel.findMany({ where: { type, enabled: true } });
  return rows.map((row) => openChannel(services, row));
}
