import type { Response } from "express";
import type { Services } from "../services.js";

export interface ServerSentEvent {
  event: string;
  data: unknown;
}

/**
 * Answers with server-sent events: `first`, then one per item of `items` (null skips an item), until they end, an
 * `error` event is sent, or the client goes away (which closes `items`, and with it the work behind them).
 * A comment every SSE_HEARTBEAT_MS keeps proxies from closing a quiet stream.
 */
export async function sendEventStream<T>(
  services: Services,
  res: Response,
  items: AsyncIterableIterator<T>,
  toEvent: (item: T) => ServerSentEvent | null | Promise<ServerSentEvent | null>,
  first: ServerSentEvent[] = [],
): Promise<void> {
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache, no-transform",
    "x-accel-buffering": "no",
  });
  res.flushHeaders();
  const write = (sse: ServerSentEvent) => res.write(`event: ${sse.event}\ndata: ${JSON.stringify(sse.data)}\n\n`);
  for (const sse of first) write(sse);
  const heartbeat = setInterval(() => res.write(": heartbeat\n\n"), services.config.SSE_HEARTBEAT_MS);
  const stop = () => void items.return?.();
  res.on("close", stop);
  // A client that left before the stream began will send no close event any more.
  if (res.destroyed) stop();
  try {
    for await (const item of items) {
      const sse = await toEvent(item);
      if (!sse) continue;
      write(sse);
      if (sse.event === "error") break;
    }
  } finally {
    clearInterval(heartbeat);
    res.off("close", stop);
    res.end();
  }
}
