import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { verifyParleyWebhook } from "../../docs/webhooks/verify.mjs";

/**
 * A tenant's endpoint on 127.0.0.1: every request is recorded and checked with the README's Node snippet
 * (docs/webhooks/verify.mjs) against the secret of the endpoint whose path it came to. `respond` chooses the
 * status per path (a failing endpoint), `hold` keeps new requests unanswered (a process killed mid-delivery).
 */
export interface WebhookReceiver {
  url: string;
  requests: ReceivedWebhook[];
  /** The signing secret of the endpoint at `path` (as the service showed it, once). */
  trust(path: string, secret: string): void;
  respond(path: string, status: number): void;
  hold(): void;
  release(): void;
  /** Resolves with the requests that `matches` once there are `count` of them. */
  waitFor(matches: (r: ReceivedWebhook) => boolean, count?: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

export interface ReceivedWebhook {
  path: string;
  headers: IncomingMessage["headers"];
  raw: string;
  /** The event, when the snippet verified the request; else null with the reason in `error`. */
  event: ReturnType<typeof verifyParleyWebhook> | null;
  error: string | null;
  at: number;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const requests: ReceivedWebhook[] = [];
  const secrets = new Map<string, string>();
  const statuses = new Map<string, number>();
  const held = new Set<ServerResponse>();
  let holding = false;
  const server = createServer((req, res) => {
    let raw = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      raw += chunk;
    });
    req.on("end", () => {
      const path = req.url ?? "/";
      let event: ReceivedWebhook["event"] = null;
      let error: string | null = null;
      try {
        event = verifyParleyWebhook(secrets.get(path) ?? "whsec_", req.headers, raw);
      } catch (err) {
        error = (err as Error).message;
      }
      requests.push({ path, headers: req.headers, raw, event, error, at: Date.now() });
      if (holding) {
        held.add(res);
        return;
      }
      const status = statuses.get(path) ?? 200;
      res.writeHead(status, { "content-type": "text/plain" }).end(status < 300 ? "received" : "endpoint unavailable");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    trust: (path, secret) => void secrets.set(path, secret),
    respond: (path, status) => void statuses.set(path, status),
    hold() {
      holding = true;
    },
    release() {
      holding = false;
      for (const res of held) res.writeHead(200).end("received");
      held.clear();
    },
    async waitFor(matches, count = 1, timeoutMs = 60_000) {
      const started = Date.now();
      for (;;) {
        const found = requests.filter(matches);
        if (found.length >= count) return found;
        if (Date.now() - started > timeoutMs) {
          throw new Error(
            `${found.length} of ${count} webhooks arrived within ${timeoutMs} ms: ${JSON.stringify(requests.map((r) => [r.path, r.event?.type, r.error]))}`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    async close() {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
