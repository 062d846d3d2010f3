import { builder } from "../builder.js";

const ConversationEvent = builder.prismaObject("ConversationEvent", {
  description: "A change in a conversation's life: a status transition or an assignment, with who made it and why",
  fields: (t) => ({
    id: t.exposeID("id"),
    type: t.exposeString("type", { description: "status (a transition) or assignment (a new agent, same status)" }),
    fromStatus: t.exposeString("fromStatus", { nullable: true }),
    toStatus: t.exposeString("toStatus", { nullable: true }),
    actor: t.exposeString("actor", { description: "customer, ai, system, or the user or API key id" }),
    reason: t.exposeString("reason", { nullable: true }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
  }),
});

builder.prismaObjectField("Conversation", "timeline", (t) =>
  t.relation("events", {
    type: ConversationEvent,
    description: "Every transition of the conversation, oldest first",
    query: { orderBy: [{ createdAt: "asc" }, { id: "asc" }] },
  }),
);
