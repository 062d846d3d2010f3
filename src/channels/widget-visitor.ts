import { randomBytes } from "node:crypto";
import type { Request } from "express";
import { listedQuestions } from "../conversations/offer.js";
import type { TenantDb } from "../db/tenant-scope.js";
import { AppError, notFound } from "../errors.js";

// A widget visitor is a browser: the widget keeps the id the service gave it (X-Widget-Visitor) and the
// conversation key (DESIGN §3) is (tenant, widget, visitor id). The id is random and known to that browser
// only, so it is what lets a visitor, and nobody else, read their conversation.

const visitorPattern = /^vis_[A-Za-z0-9_-]{24,64}$/;

export const newVisitorId = () => `vis_${randomBytes(24).toString("base64url")}`;

/** The visitor id the widget sent, or null when it sent none (or not one the service gives). */
export function visitorIdOf(req: Request): string | null {
  const header = req.get("x-widget-visitor");
  return header && visitorPattern.test(header) ? header : null;
}

export function requireVisitorId(req: Request): string {
  const id = visitorIdOf(req);
  if (!id) {
    throw new AppError("VALIDATION", "Missing or malformed X-Widget-Visitor: call /api/v1/widget/init for a visitor id", [
      { path: "X-Widget-Visitor", message: "the visitor id init returned" },
    ]);
  }
  return id;
}

/**
 * The roles a visitor sees: their own messages, the AI's, the agents', and the service's notices to them (the AI
 * disclosure, the satisfaction question).
 */
const visibleRoles = ["customer", "assistant", "agent", "system"];
/** The roles the live feed carries: the visitor's own messages are already on their screen. */
export const repliedRoles: ReadonlySet<string> = new Set(["assistant", "agent", "system"]);

export interface VisitorMessage {
  id: string;
  role: string;
  content: string;
  /** What an assistant message is besides an answer: `disclosure` (the AI disclosure), `survey` (a satisfaction question). */
  kind: string | null;
  /** The FAQ questions an assistant's decline lists (src/ai/local.ts), offered as buttons; else empty. */
  suggestions: string[];
  created_at: string;
}

export const visitorMessageFields = { id: true, role: true, content: true, metadata: true, createdAt: true } as const;

export function visitorMessage(row: {
  id: string;
  role: string;
  content: string;
  metadata: unknown;
  createdAt: Date;
}): VisitorMessage {
  const kind = (row.metadata as { kind?: unknown } | null)?.kind;
  return {
    id: row.id,
    role: row.role,
    content: row.content,
    kind: typeof kind === "string" ? kind : null,
    suggestions: listedQuestions(row.metadata),
    created_at: row.createdAt.toISOString(),
  };
}

/** The visitor's current conversation: the latest one not closed (a resolved one is picked up again when they write). */
export function currentConversation(db: TenantDb, visitorId: string) {
  return db.conversation.findFirst({
    where: { channel: "widget", customerId: visitorId, status: { not: "closed" } },
    orderBy: [{ updatedAt: "desc" }, { id: "desc" }],
    select: { id: true, status: true },
  });
}

/** One of the visitor's conversations by id; 404 for anyone else's. */
export async function visitorConversation(db: TenantDb, visitorId: string, conversationId: string) {
  const found = await db.conversation.findFirst({
    where: { id: conversationId, channel: "widget", customerId: visitorId },
    select: { id: true, status: true },
  });
  if (!found) throw notFound("Conversation");
  return found;
}

/** The latest messages of a conversation that the visitor sees, oldest first. */
export async function recentMessages(db: TenantDb, conversationId: string, roles = visibleRoles, take = 50) {
  const rows = await db.message.findMany({
    where: { conversationId, role: { in: [...roles] } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take,
    select: visitorMessageFields,
  });
  return rows.reverse().map(visitorMessage);
}
