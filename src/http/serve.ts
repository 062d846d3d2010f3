import { createServer, type Server, STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import type { Services } from "../services.js";
import { createApp } from "./app.js";

/** Node's refusals of a request it could not parse, as `{error, code}` like every other error of the service. */
const refusals: Record<string, { status: number; error: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, error: "The request's headers (its URL included) are larger than 16 kB" },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, error: "The request was not received in time" },
};

/**
 * Answers a request Node's parser refused before Express saw it (headers too large, malformed HTTP): Node's own
 * answer has an empty body, where a client of this API expects JSON.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === "ECONNRESET" || !socket.writable) {
    socket.destroy();
    return;
  }
  const { status, error } = refusals[err.code ?? ""] ?? { status: 400, error: "The request is not valid HTTP" };
  const body = JSON.stringify({ error, code: "VALIDATION" });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * The service's HTTP server, listening. A request must arrive whole within HTTP_REQUEST_TIMEOUT_MS (its headers within
 * a third of it, at most 20 s), checked every second rather than Node's 30: a client that trickles its body is
 * answered 408 and closed, instead of holding a socket for minutes.
 */
export function serve(services: Services, port: number, host: string): Server {
  const { HTTP_REQUEST_TIMEOUT_MS: requestTimeout, HTTP_MAX_CONNECTIONS } = services.config;
  const server = createServer(
    {
      requestTimeout,
      headersTimeout: Math.min(20_000, Math.ceil(requestTimeout / 3)),
      connectionsCheckingInterval: Math.min(1_000, requestTimeout / 2),
    },
    createApp(services),
  );
  server.maxConnections = HTTP_MAX_CONNECTIONS;
  server.on("clientError", answerClientError);
  return server.listen(port, host);
}
