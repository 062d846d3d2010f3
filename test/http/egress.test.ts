import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { Egress, EgressRefusedError, type Resolver } from "../../src/http/egress.js";

/** A local HTTP server that counts the requests it receives, closing each connection after its answer. */
async function startServer(host: string, port = 0): Promise<{ server: Server; port: number; requests: string[] }> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(req.url ?? "/");
    res.writeHead(200, { "content-type": "text/plain", connection: "close" }).end(`hello from ${host}`);
  });
  server.listen(port, host);
  await once(server, "listening");
  return { server, port: (server.address() as AddressInfo).port, requests };
}

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

function egress(allowCidrs: string[], resolver?: Resolver): Egress {
  const client = new Egress({ allowCidrs, resolver });
  cleanups.push(() => client.close());
  return client;
}

async function server(host: string, port = 0) {
  const started = await startServer(host, port);
  cleanups.push(() => {
    started.server.closeAllConnections();
    return new Promise((resolve) => started.server.close(resolve));
  });
  return started;
}

describe("outbound HTTP to tenant-chosen URLs", () => {
  it("refuses a host name that resolves to 127.0.0.1 unless the operator opened loopback, without connecting", async () => {
    const local = await server("127.0.0.1");
    const url = new URL(`http://localhost:${local.port}/secret`);
    await expect(egress([]).fetch(url)).rejects.toThrow(EgressRefusedError);
    await expect(egress([]).fetch(url)).rejects.toThrow(
      /localhost resolves to (127\.0\.0\.1|::1), a private or reserved address/,
    );
    await expect(egress([]).fetch(new URL(`http://127.0.0.1:${local.port}/secret`))).rejects.toThrow(
      "127.0.0.1 is a private or reserved address",
    );
    expect(local.requests).toEqual([]);

    const opened = await egress(["127.0.0.0/8", "::1/128"]).fetch(url);
    expect(await opened.text()).toBe("hello from 127.0.0.1");
    expect(local.requests).toEqual(["/secret"]);
  });

  it("refuses an internal address written as an IPv6 literal that embeds it", async () => {
    const local = await server("127.0.0.1");
    for (const host of ["[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "[::1]"]) {
      await expect(egress([]).fetch(new URL(`http://${host}:${local.port}/`))).rejects.toThrow(EgressRefusedError);
    }
    expect(local.requests).toEqual([]);
  });

  it("checks the address at connection time: a name that resolves to an open address, then to an internal one, is refused (DNS rebinding)", async () => {
    const open = await server("127.0.0.2");
    const internal = await server("127.0.0.1", open.port);
    const answers = ["127.0.0.2"];
    const rebinding: Resolver = async () => [{ address: answers.shift() ?? "127.0.0.1", family: 4 }];
    const client = egress(["127.0.0.2/32"], rebinding);
    const url = new URL(`http://rebind.example:${open.port}/`);

    expect(await (await client.fetch(url)).text()).toBe("hello from 127.0.0.2");
    await expect(client.fetch(url)).rejects.toThrow("rebind.example resolves to 127.0.0.1, a private or reserved address");
    expect(open.requests).toEqual(["/"]);
    expect(internal.requests).toEqual([]);
  });

  it("refuses a name with one internal address among public ones, which the socket might try", async () => {
    const internal = await server("127.0.0.1");
    const mixed: Resolver = async () => [
      { address: "93.184.216.34", family: 4 },
      { address: "127.0.0.1", family: 4 },
    ];
    await expect(egress([], mixed).fetch(new URL(`http://mixed.example:${internal.port}/`))).rejects.toThrow(
      "mixed.example resolves to 127.0.0.1",
    );
    expect(internal.requests).toEqual([]);
  });

  it("does not follow redirects itself: the caller sees each hop and sends the next one through the same checks", async () => {
    const redirecting = createServer((_req, res) =>
      res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/" }).end(),
    );
    redirecting.listen(0, "127.0.0.1");
    await once(redirecting, "listening");
    cleanups.push(() => new Promise((resolve) => redirecting.close(resolve)));
    const response = await egress(["127.0.0.1/32"]).fetch(
      new URL(`http://127.0.0.1:${(redirecting.address() as AddressInfo).port}/`),
    );
    expect(response.status).toBe(302);
    await expect(egress(["127.0.0.1/32"]).fetch(new URL(response.headers.get("location")!))).rejects.toThrow(
      "169.254.169.254 is a private or reserved address",
    );
  });

  it.each(["file:///etc/passwd", "gopher://127.0.0.1:70/_GET", "ftp://127.0.0.1/", "data:text/plain,hi", "ws://127.0.0.1/"])(
    "refuses the non-HTTP URL %s, even where the operator opened every address",
    async (url) => {
      await expect(egress(["0.0.0.0/0", "::/0"]).fetch(new URL(url))).rejects.toThrow(
        /URLs are not fetched, only http: and https:/,
      );
    },
  );
});
