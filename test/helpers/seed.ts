import { randomBytes } from "node:crypto";
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

const seedChannels = ["widget", "chatapp", "sms", "messenger", "botmsg", "voice"];
const seedIntents = ["opening_hours", "card_pin", "transfer_limit", "savings_rate", "card_lost_or_stolen", "greeting"];

/**
 * A realistic tenant's history in a few statements (not row by row): `conversations` conversations over the last
 * 30 days, on every kind of channel and status, each with a customer question and the AI's answer, and, when
 * `longConversation` is given, one conversation of that many messages. Returns the long conversation's id.
 */
export async function seedHistory(
  services: Services,
  tenantId: string,
  { conversations, longConversation = 0 }: { conversations: number; longConversation?: number },
): Promise<string | null> {
  const tag = randomBytes(4).toString("hex");
  const sql = services.db.sql;
  await sql.query(
    `INSERT INTO conversations (id, tenant_id, channel, status, customer_phone, customer_id, customer_name, message_count,
                                created_at, updated_at)
     SELECT 'conv_' || $2 || '_' || g, $1, ($3::text[])[1 + g % 6],
            (ARRAY['resolved','open','resolved','closed','open','resolved'])[1 + g % 6],
            '+4915550' || lpad(g::text, 5, '0'), 'cust_' || $2 || '_' || g, 'Customer ' || g, 2,
            now() - make_interval(mins => (g::bigint * 43200 / $4)::int), now() - make_interval(mins => (g::bigint * 43200 / $4)::int)
       FROM generate_series(1, $4) g`,
    [tenantId, tag, seedChannels, conversations],
  );
  await sql.query(
    `INSERT INTO messages (id, tenant_id, conversation_id, role, content, metadata, created_at)
     SELECT 'msg_' || $2 || '_' || g || '_' || k, $1, 'conv_' || $2 || '_' || g,
            CASE k WHEN 1 THEN 'customer' ELSE 'assistant' END,
            CASE k WHEN 1 THEN 'Question ' || g || ' about ' || replace(($3::text[])[1 + g % 6], '_', ' ')
                   ELSE 'Answer ' || g || ' from the knowledge base.' END,
            jsonb_build_object('intent', ($3::text[])[1 + g % 6], 'confidence', 0.8, 'agentType', 'faq', 'grounded', g % 5 <> 0)
              -- Some declines list questions, and some answers are to a question chosen from such a list.
              || CASE WHEN k = 2 AND g % 10 = 0 THEN '{"suggestions": ["How do I order a card?"]}'::jsonb
                      WHEN k = 2 AND g % 20 = 1 THEN '{"chosen": true}'::jsonb ELSE '{}'::jsonb END,
            now() - make_interval(mins => (g::bigint * 43200 / $4)::int) + make_interval(secs => k)
       FROM generate_series(1, $4) g, generate_series(1, 2) k`,
    [tenantId, tag, seedIntents, conversations],
  );
  if (!longConversation) return null;
  const id = `conv_${tag}_long`;
  await sql.query(
    `INSERT INTO conversations (id, tenant_id, channel, status, customer_phone, customer_id, customer_name, message_count,
                                created_at, updated_at)
     VALUES ($1, $2, 'chatapp', 'open', '+491555099999', '491555099999', 'Long Talker', $3,
             now() - interval '40 days', now() - interval '40 days')`,
    [id, tenantId, longConversation],
  );
  await sql.query(
    `INSERT INTO messages (id, tenant_id, conversation_id, role, content, metadata, created_at)
     SELECT 'msg_' || $2 || '_long_' || lpad(k::text, 6, '0'), $1, $3,
            CASE WHEN k % 2 = 1 THEN 'customer' ELSE 'assistant' END, 'Long conversation message ' || k,
            '{}'::jsonb, now() - interval '40 days' + make_interval(secs => k)
       FROM generate_series(1, $4) k`,
    [tenantId, tag, id, longConversation],
  );
  return id;
}

/** `count` ready knowledge sources listed as a bank's help pages would be (rows only: their chunks are not needed). */
export async function seedSourceList(services: Services, tenantId: string, count: number): Promise<void> {
  const tag = randomBytes(4).toString("hex");
  await services.db.sql.query(
    `INSERT INTO knowledge_sources (id, tenant_id, type, title, source_url, status, pages, chunks, tokens, last_synced_at,
                                    created_at, updated_at)
     SELECT 'src_' || $2 || '_' || g, $1, 'url', 'Help page ' || g, 'https://www.example-bank.com/help/' || g, 'ready',
            1 + g % 7, 3 + g % 11, 1200 + g * 37, now() - make_interval(hours => g), now() - make_interval(days => g),
            now() - make_interval(hours => g)
       FROM generate_series(1, $3) g`,
    [tenantId, tag, count],
  );
}

/**
 * Customers' feedback on a seeded history, in two statements: a thumb on every third AI reply (one in four of them
 * down), and the satisfaction question at every resolved conversation, answered (1 to 5) at two in three.
 */
export async function seedFeedback(services: Services, tenantId: string): Promise<void> {
  const sql = services.db.sql;
  await sql.query(
    `INSERT INTO message_feedback (id, tenant_id, message_id, conversation_id, channel, rating, source, created_at, updated_at)
     SELECT 'fb_' || m.id, m.tenant_id, m.id, m.conversation_id, c.channel,
            CASE WHEN n % 4 = 0 THEN 'down' ELSE 'up' END, 'widget', m.created_at, m.created_at
       FROM (SELECT m.*, row_number() OVER (ORDER BY m.id) AS n FROM messages m
              WHERE m.tenant_id = $1 AND m.role = 'assistant') m
       JOIN conversations c ON c.id = m.conversation_id
      WHERE n % 3 = 0`,
    [tenantId],
  );
  await sql.query(
    `INSERT INTO satisfaction_surveys (id, tenant_id, conversation_id, channel, score, asked_at, expires_at, answered_at)
     SELECT 'sat_' || c.id, c.tenant_id, c.id, c.channel, CASE WHEN n % 3 <> 0 THEN 1 + n % 5 END, c.updated_at,
            c.updated_at + interval '1 day', CASE WHEN n % 3 <> 0 THEN c.updated_at + interval '1 minute' END
       FROM (SELECT *, row_number() OVER (ORDER BY id) AS n FROM conversations WHERE tenant_id = $1 AND status = 'resolved') c`,
    [tenantId],
  );
}
