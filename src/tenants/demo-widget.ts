import { saveChannel } from "../channels/config.js";
import { openChannel } from "../channels/store.js";
import { allowedOrigins } from "../channels/widget.js";
import { scopeToTenant } from "../db/tenant-scope.js";
import { addManualSource } from "../knowledge/sources.js";
import type { Services } from "../services.js";

// What the demo page (/demo) needs of the demo tenant, made on first visit: a widget channel that the page's
// own origin may use, and a few answers, so that a newcomer sees a grounded reply at once.

const demoKnowledge = {
  title: "Demo Bank FAQ",
  content: [
    "Opening hours: our branches are open Monday to Friday from 9:00 to 17:00 and on Saturday from 9:00 to 12:30. " +
      "The phone line answers every day from 8:00 to 20:00.",
    "Card PIN: to reset your card PIN, open the Demo Bank app, choose Cards, then Reset PIN, and confirm with your passcode. " +
      "The new PIN works at once in shops and at cash machines.",
    "Transfers: transfers between Demo Bank accounts arrive at once. Transfers to other banks arrive within one business day. " +
      "The daily limit for transfers in the app is 10,000 euros; a branch can raise it for a single payment.",
    "Savings: the Easy Saver account pays 2.1 % a year on any balance, with no notice needed to withdraw.",
  ].join("\n\n"),
};

/** The demo tenant's widget channel, with `origin` on its allow-list, and a knowledge base to answer from. */
export async function ensureDemoWidget(services: Services, tenantId: string, origin: string) {
  const db = scopeToTenant(services.db.prisma, tenantId);
  const existing = await db.channel.findFirst({ where: { type: "widget" }, orderBy: { createdAt: "asc" } });
  const origins = existing ? allowedOrigins(openChannel(services, existing).settings) : [];
  let row = existing;
  if (!row || !origins.includes(origin)) {
    const settings = row
      ? { allowed_origins: [...origins, origin] }
      : {
          allowed_origins: [origin],
          title: "Demo Bank",
          greeting: "Hello! Ask me about opening hours, card PINs, transfers or savings.",
        };
    row = (await saveChannel({ services, db, tenantId }, row?.id ?? "widget", { name: "Demo widget", settings })).row;
  }
  if (!(await db.knowledgeSource.count()))
    await addManualSource(services, db, tenantId, demoKnowledge.title, demoKnowledge.content);
  return openChannel(services, row);
}
