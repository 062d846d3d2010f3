import type { Principal } from "../auth/principal.js";
import { newId } from "../db/ids.js";
import type { TenantDb } from "../db/tenant-scope.js";
import { notFound } from "../errors.js";
import { publishActivity } from "../escalations/inbox.js";
import type { Services } from "../services.js";

/**
 * The role of an agent's private note. Every reader the customer has (the widget's transcript and feed, the
 * engine's history, the REST transcript) asks for the roles it shows by name, so a note is never among them; it is
 * not delivered anywhere and not counted in the conversation's messages.
 */
export const noteRole = "note";

export async function addNote(
  services: Services,
  db: TenantDb,
  principal: Principal,
  input: { conversationId: string; content: string },
): Promise<string> {
  const conversation = await db.conversation.findUnique({ where: { id: input.conversationId }, select: { id: true } });
  if (!conversation) throw notFound("Conversation");
  const author =
    principal.kind === "user" ? await db.user.findUnique({ where: { id: principal.id }, select: { name: true } }) : null;
  const id = newId("msg");
  await db.message.create({
    data: {
      id,
      tenantId: principal.tenantId,
      conversationId: conversation.id,
      role: noteRole,
      content: input.content,
      metadata: { agentId: principal.id, agentName: author?.name ?? null },
    },
  });
  publishActivity(services, principal.tenantId, { conversationId: conversation.id, messageId: id });
  return id;
}
