import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A small bank web site on 127.0.0.1 for knowledge-base tests; pages can be changed or removed between crawls. */
export interface BankSite {
  url: string;
  pages: Map<string, string>;
  /**
   * Paths that answer with this status instead of their page. Server errors come with `Retry-After: 0`:
   * the crawler still retries them, without waiting.
   */
  statuses: Map<string, number>;
  /** The path of every request received, in order. */
  requests: string[];
  /** Keeps requests for `path` waiting until the returned function is called: a page still loading, for as long as a test needs. */
  hold(path: string): () => void;
  close(): Promise<void>;
}

/** A page of the site: navigation and footer boilerplate around the article, then links. */
export const bankPage = (title: string, body: string, links: string[]) => `<!doctype html>
<html><head><title>${title}</title></head>
<body>
  <nav><a href="/">Home</a> <a href="/login">Log in</a> Personal | Business | Cookie settings</nav>
  <main><article><h1>${title}</h1>${body}</article></main>
  <ul>${links.map((l) => `<li><a href="${l}">${l}</a></li>`).join("")}</ul>
  <footer>© Example Bank plc. Authorised by the Prudential Regulation Authority.</footer>
</body></html>`;

export function defaultBankPages(): Map<string, string> {
  return new Map([
    [
      "/",
      bankPage(
        "Help centre",
        "<p>Welcome to the Example Bank help centre. Find answers about cards, payments and branches.</p>",
        ["/cards", "/branches"],
      ),
    ],
    [
      "/cards",
      bankPage(
        "Cards",
        `<h2>Lost or stolen cards</h2><p>If your card is lost or stolen, freeze it at once in the mobile app under Card settings, then call 0800 123 456 at any time, day or night. A replacement card arrives within 5 working days.</p>
         <h2>Changing your PIN</h2><p>You can change your PIN at any Example Bank cash machine by choosing PIN services.</p>`,
        ["/"],
      ),
    ],
    [
      "/branches",
      bankPage(
        "Branches and opening hours",
        "<p>Our branches are open Monday to Friday from 9am to 5pm and on Saturday from 9am to 12.30pm. Branches are closed on Sundays and bank holidays.</p>",
        ["/"],
      ),
    ],
  ]);
}

export async function startBankSite(pages = defaultBankPages()): Promise<BankSite> {
  const statuses = new Map<string, number>();
  const requests: string[] = [];
  const held = new Map<string, Promise<void>>();
  const releases = new Set<() => void>();
  const server: Server = createServer(async (req, res) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    requests.push(path);
    await held.get(path);
    if (path === "/robots.txt") {
      res.writeHead(200, { "content-type": "text/plain" }).end("User-agent: *\nAllow: /\n");
      return;
    }
    const status = statuses.get(path);
    if (status) {
      res
        .writeHead(status, { "content-type": "text/html", ...(status >= 500 ? { "retry-after": "0" } : {}) })
        .end("<h1>Error</h1>");
      return;
    }
    const page = pages.get(path);
    if (!page) {
      res.writeHead(404, { "content-type": "text/html" }).end("<h1>Not found</h1>");
      return;
    }
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    pages,
    statuses,
    requests,
    hold(path) {
      let release!: () => void;
      held.set(path, new Promise<void>((resolve) => (release = resolve)));
      const done = () => {
        held.delete(path);
        releases.delete(done);
        release();
      };
      releases.add(done);
      return done;
    },
    close: () => {
      // Held requests would keep close() waiting for their connections.
      for (const release of [...releases]) release();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
