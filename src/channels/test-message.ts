import type { TenantDb } from "../db/tenant-scope.js";
import { AppError } from "../errors.js";
import type { Services } from "../services.js";
import { getChannel } from "./config.js";
import { adapterFor } from "./registry.js";
import { openChannel } from "./store.js";

/**
 * A message from the tenant to an address of its choosing, straight through the channel's provider with its saved
 * credentials: the "send a test message" of the Channels page, to prove them before customers write. Not stored
 * and not part of any conversation. Channels whose replies only answer a customer's own request (USSD, voice, the
 * widget) cannot start one.
 */
export async function sendTestMessage(
  services: Services,
  db: TenantDb,
  input: { ref: string; to: string; text: string },
): Promise<{ providerMessageId: string | null }> {
  const row = await getChannel(db, input.ref);
  const adapter = adapterFor(row.type);
  if (!adapter.send) {
    throw new AppError(
      "VALIDATION",
      `A ${row.type} channel only answers the customer's own request: it cannot send a test message`,
      [{ path: "ref", message: `${row.type} cannot start a message` }],
    );
  }
  if (!row.enabled)
    throw new AppError("VALIDATION", "The channel is disabled: enable it first", [{ path: "ref", message: "disabled" }]);
  const channel = openChannel(services, row);
  try {
    const sent = await adapter.send(
      { channel, config: services.config, signal: AbortSignal.timeout(30_000) },
      { to: input.to, text: adapter.format(input.text, channel.settings) },
    );
    return { providerMessageId: sent.providerMessageId ?? null };
  } catch (err) {
    throw new AppError("EXTERNAL", `The provider refused the test message: ${(err as Error).message}`);
  }
}
