import type { Services } from "../services.js";
import type { ChannelType, ConfiguredChannel } from "./adapter.js";
import { openChannel } from "./store.js";

// Saving a channel claims a provider account (its routing key) without proving anything: several tenants'
// channels may claim one account, and saving never says whether another does. A delivery belongs to the claim
// whose credentials verify its signature; the claim that such a delivery proved is the account's verified claim
// (at most one per account, kept by a unique index), tried first for the next deliveries.

export interface Claim {
  channel: ConfiguredChannel;
  verified: boolean;
}

/** The enabled channels claiming a provider account, the verified claim first. */
export async function claimsOf(services: Services, type: ChannelType, routingKey: string): Promise<Claim[]> {
  const rows = await services.tenants.channelRows(`account:${type}:${routingKey}`, async () => {
    const found = await services.db.prisma.channel.findMany({
      where: { type, routingKey, enabled: true },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    });
    return found.length ? found : null;
  });
  return (rows ?? [])
    .map((row) => ({ channel: openChannel(services, row), verified: row.verifiedRoutingKey === row.routingKey }))
    .sort((a, b) => Number(b.verified) - Number(a.verified));
}

/** Makes the claim the account's verified one, taking over from the claim that held it (which is pending again). */
async function prove(services: Services, channel: ConfiguredChannel): Promise<void> {
  const { type, routingKey, id } = channel;
  const prisma = services.db.prisma;
  try {
    await prisma.$transaction([
      prisma.channel.updateMany({
        where: { type, verifiedRoutingKey: routingKey, id: { not: id } },
        data: { verifiedRoutingKey: null },
      }),
      prisma.channel.updateMany({ where: { id, routingKey }, data: { verifiedRoutingKey: routingKey } }),
    ]);
    // The claims of the account changed, whichever tenants they are: the proven one is tried first from now on.
    services.tenants.changed(channel.tenantId);
    services.logger.info({ channelId: id, type }, "a signed delivery proved the channel's claim on its account");
  } catch (err) {
    // Another claim was proven at the same moment: this delivery is still this claim's, the next one decides.
    if ((err as { code?: string }).code !== "P2002") throw err;
  }
}

/**
 * The channel a delivery for a provider account belongs to: the claim whose credentials verify it, the verified
 * claim first. A pending claim that alone verifies it is proven by it. `"unverified"` when the account is claimed
 * but no claim verifies the delivery (a forgery, or a secret not yet saved); null when no channel claims it, or
 * when several pending claims verify it (claims sharing one secret, which no delivery can tell apart).
 */
export async function claimantOf(
  services: Services,
  type: ChannelType,
  routingKey: string,
  verifies: (channel: ConfiguredChannel) => boolean,
): Promise<ConfiguredChannel | "unverified" | null> {
  const claims = await claimsOf(services, type, routingKey);
  if (!claims.length) return null;
  const [first] = claims;
  if (first!.verified && verifies(first!.channel)) return first!.channel;
  const proven = claims.filter((c) => !c.verified && verifies(c.channel));
  if (!proven.length) return "unverified";
  if (proven.length > 1) {
    services.logger.warn({ type, claims: proven.length }, "a delivery verifies under several pending claims: not routed");
    return null;
  }
  await prove(services, proven[0]!.channel);
  return proven[0]!.channel;
}
