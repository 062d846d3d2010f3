import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * The messaging providers' send APIs on 127.0.0.1, answering as their documentation says
 * (../shared/providers/): every request is recorded, and `failNext` makes the next sends fail the
 * way the real services do (429 with Retry-After, 5xx, 4xx). One server serves every provider:
 * their paths do not overlap.
 */
export interface FakeProviders {
  url: string;
  /** The env that points the service at this server. */
  env: Record<string, string>;
  sends: RecordedSend[];
  failNext(...failures: Failure[]): void;
  /** Every send whose path matches fails this way until `recover` (a provider that is down). */
  failPath(pattern: RegExp, failure: Failure): void;
  recover(): void;
  /** New sends wait unanswered and unrecorded until `release`: nothing reaches the provider meanwhile. */
  hold(): void;
  /** Answers the held sends; one whose sender hung up meanwhile never reached the provider and is dropped. */
  release(): void;
  /** Held sends whose sender is still connected. */
  holding(): number;
  /** Resolves once `count` sends have arrived (or rejects after `timeoutMs`). */
  waitForSends(count: number, timeoutMs?: number): Promise<RecordedSend[]>;
  /**
   * Runs `action` (a webhook post, say) and resolves with the send that follows it: the first one `to` matches, where
   * an earlier test's retry may arrive in between.
   */
  nextSend(action: () => Promise<unknown>, to?: (send: RecordedSend) => boolean): Promise<RecordedSend>;
  close(): Promise<void>;
}

export interface RecordedSend {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  raw: string;
  /** The body as JSON, or as form fields for form posts. */
  body: any;
  /** When it arrived (epoch ms). */
  at: number;
}

export interface Failure {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

let counter = 0;
const nextId = () => `${Date.now()}${++counter}`;

/** Each provider's documented success answer, by the path of its send call. */
const successes: Array<[RegExp, (send: RecordedSend) => unknown]> = [
  // WhatsApp Cloud API: /<phone_number_id>/messages
  [
    /^\/graph\/\d+\/messages$/,
    (s) => ({
      messaging_product: "whatsapp",
      contacts: [{ input: s.body.to, wa_id: s.body.to }],
      messages: [{ id: `wamid.OUT${nextId()}` }],
    }),
  ],
  // Messenger / Instagram Send API
  [/^\/graph\/me\/messages$/, (s) => ({ recipient_id: s.body?.recipient?.id, message_id: `m_OUT${nextId()}` })],
  // Twilio Messages
  [/^\/twilio\/2010-04-01\/Accounts\/\w+\/Messages\.json$/, (s) => ({ sid: `SM${nextId()}`, status: "queued", to: s.body.To })],
  // Africa's Talking SMS
  [
    /^\/africastalking\/version1\/messaging$/,
    (s) => ({
      SMSMessageData: {
        Message: "Sent to 1/1 Total Cost: KES 0.8000",
        Recipients: [
          { statusCode: 101, number: s.body.to, status: "Success", cost: "KES 0.8000", messageId: `ATXid_${nextId()}` },
        ],
      },
    }),
  ],
  // Telegram Bot API
  [
    /^\/telegram\/bot[^/]+\/sendMessage$/,
    (s) => ({ ok: true, result: { message_id: counter + 1000, chat: { id: s.body.chat_id }, text: s.body.text } }),
  ],
  // X direct messages
  [/^\/x\/2\/dm_conversations\/with\/\w+\/messages$/, () => ({ data: { dm_conversation_id: "1-2", dm_event_id: nextId() } })],
  // Slack Web API
  [
    /^\/slack\/chat\.postMessage$/,
    (s) => ({ ok: true, channel: s.body.channel, ts: `${Math.floor(Date.now() / 1000)}.${String(counter).padStart(6, "0")}` }),
  ],
];

function parseBody(raw: string, contentType: string | undefined): unknown {
  if (contentType?.includes("application/x-www-form-urlencoded")) return Object.fromEntries(new URLSearchParams(raw));
  try {
    return raw ? JSON.parse(raw) : null;
  } catch {
    return raw;
  }
}

export async function startFakeProviders(): Promise<FakeProviders> {
  const sends: RecordedSend[] = [];
  const failures: Failure[] = [];
  const outages = new Map<RegExp, Failure>();
  const waiters = new Set<() => void>();
  let held: Array<{ req: IncomingMessage; resume: () => void }> | null = null;

  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    if (held) {
      const waiting = held;
      await new Promise<void>((resume) => waiting.push({ req, resume }));
      if (req.socket.destroyed) return;
    }
    const path = new URL(req.url ?? "/", "http://fake").pathname;
    const send: RecordedSend = {
      method: req.method ?? "GET",
      path,
      headers: req.headers,
      raw,
      body: parseBody(raw, req.headers["content-type"]),
      at: Date.now(),
    };
    const failure = [...outages].find(([pattern]) => pattern.test(path))?.[1] ?? failures.shift();
    if (failure) {
      res.writeHead(failure.status, { "content-type": "application/json", ...failure.headers });
      res.end(JSON.stringify(failure.body ?? { error: { message: `fake failure ${failure.status}` } }));
      return;
    }
    const success = successes.find(([pattern]) => pattern.test(path));
    if (!success) {
      res
        .writeHead(404, { "content-type": "application/json" })
        .end(JSON.stringify({ error: { message: `no fake for ${path}` } }));
      return;
    }
    sends.push(send);
    for (const wake of waiters) wake();
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(success[1](send)));
  });
  server.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const fake: FakeProviders = {
    url,
    env: {
      MESSAGING_API_URL: `${url}/graph`,
      TWILIO_API_URL: `${url}/twilio`,
      AFRICASTALKING_API_URL: `${url}/africastalking`,
      TELEGRAM_API_URL: `${url}/telegram`,
      X_API_URL: `${url}/x`,
      SLACK_API_URL: `${url}/slack`,
    },
    sends,
    failNext: (...f) => failures.push(...f),
    failPath: (pattern, failure) => outages.set(pattern, failure),
    recover: () => outages.clear(),
    hold: () => {
      held ??= [];
    },
    release: () => {
      const waiting = held ?? [];
      held = null;
      for (const { resume } of waiting) resume();
    },
    holding: () => (held ?? []).filter(({ req }) => !req.socket.destroyed).length,
    waitForSends(count, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (sends.length < count) return;
          cleanup();
          resolve(sends.slice(0, count));
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`expected ${count} sends within ${timeoutMs} ms, got ${sends.length}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    async nextSend(action, to) {
      const before = sends.length;
      await action();
      if (!to) return (await fake.waitForSends(before + 1)).at(-1)!;
      for (let count = before + 1; ; count++) {
        const send = (await fake.waitForSends(count)).at(-1)!;
        if (to(send)) return send;
      }
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  return fake;
}
