import { claimsOf } from "../channels/claims.js";
import { channelByToken } from "../channels/store.js";
import type { Services } from "../services.js";

/**
 * Asks, before the service says it is ready, the look-ups every first request makes (an API key, a tenant, a channel
 * by webhook token or by provider account), for values that find nothing. Prisma compiles each query's shape on its
 * first use, tens to hundreds of milliseconds on the event loop; later uses of the shape, whatever their values, reuse
 * it. Without this, a restarted instance's first webhook acknowledgement paid for it (issue 14's cold-start rows).
 * Nothing is cached: the tenant cache keeps no look-up that found nothing.
 */
export async function warmRequestLookups(services: Services): Promise<void> {
  const nothing = "";
  await Promise.all([
    services.tenants.apiKey(nothing),
    services.tenants.tenant(nothing),
    channelByToken(services, ["botmsg"], nothing),
    claimsOf(services, "chatapp", nothing),
  ]);
}
