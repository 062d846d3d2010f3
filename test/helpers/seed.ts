import { newId } from "../../src/db/ids.js";
import type { Services } from "../../src/services.js";

/** Writes a conversation with messages straight to the database, as the pipeline would. */
export async function seedConversation(
  services: Services,
  tenantId: string,
  input: {
    channel?: string;
    status?: string;
    customerPhone?: string | null;
    customerId?: string;
    messages?: Array<{ role: string; content: string }>;
    createdAt?: Date;
  } = {},
) {
  const id = newId("conv");
  const messages = input.messages ?? [
    { role: "customer", content: "What are your opening hours?" },
    { role: "assistant", content: "We are open 9 to 5." },
  ];
  const createdAt = input.createdAt ?? new Date();
  await services.db.prisma.conversation.create({
    data: {
      id,
      tenantId,
      channel: input.channel ?? "sms",
      status: input.status ?? "open",
      customerPhone: input.customerPhone === undefined ? "+15550001111" : input.customerPhone,
      customerId: input.customerId ?? newId("usr"),
      messageCount: messages.length,
      createdAt,
      messages: {
        create: messages.map((m, i) => ({
          id: newId("msg"),
          tenantId,
          role: m.role,
          content: m.content,
          createdAt: new Date(createdAt.getTime() + i),
        })),
      },
    },
  });
  return id;
}
