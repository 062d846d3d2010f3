/**
 * The `data` of each event, in the REST API's snake_case, built in one place so that every event of a kind has the
 * same shape whichever path caused it (README, Event notifications).
 */

export function conversationData(c: {
  id: string;
  channel: string;
  status: string;
  customerPhone: string | null;
  customerId: string | null;
  createdAt: Date;
}) {
  return {
    conversation: {
      id: c.id,
      channel: c.channel,
      status: c.status,
      customer_phone: c.customerPhone,
      customer_id: c.customerId,
      created_at: c.createdAt.toISOString(),
    },
  };
}

export function messageData(
  m: { id: string; conversationId: string; role: string; content: string },
  delivery?: { status: string; attempts: number; error: string | null },
) {
  return {
    message: { id: m.id, conversation_id: m.conversationId, role: m.role, content: m.content },
    ...(delivery ? { delivery } : {}),
  };
}

export function escalationData(
  conversationId: string,
  e: { id: string; reason: string; priority: string; status: string; teamId: string | null; assigneeId: string | null },
  by: string,
) {
  return {
    conversation_id: conversationId,
    escalation: {
      id: e.id,
      reason: e.reason,
      priority: e.priority,
      status: e.status,
      team_id: e.teamId,
      assignee_id: e.assigneeId,
    },
    by,
  };
}

export function sourceData(s: {
  id: string;
  type: string;
  title: string;
  sourceUrl: string | null;
  status: string;
  error: string | null;
  pages: number;
  chunks: number;
}) {
  return {
    source: {
      id: s.id,
      type: s.type,
      title: s.title,
      source_url: s.sourceUrl,
      status: s.status,
      error: s.error,
      pages: s.pages,
      chunks: s.chunks,
    },
  };
}
