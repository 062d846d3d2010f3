/**
 * A browser's part in a redirect flow: follows redirects one by one, keeping each origin's cookies, until one leads
 * to a path `stopAt` accepts (the dashboard), whose URL it answers without loading it. `rewrite` maps an address the
 * service advertises (its PUBLIC_BASE_URL) to where the test reaches it.
 */
export class RedirectBrowser {
  private readonly jars = new Map<string, Map<string, string>>();

  constructor(private readonly rewrite: (url: URL) => URL = (url) => url) {}

  cookies(origin: string): Map<string, string> {
    const jar = this.jars.get(origin) ?? new Map<string, string>();
    this.jars.set(origin, jar);
    return jar;
  }

  /** One request, as a browser sends it, with the origin's cookies; stores the cookies the answer sets. */
  async get(url: URL): Promise<Response> {
    const jar = this.cookies(url.origin);
    const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join("; ");
    const res = await fetch(url, { redirect: "manual", headers: cookie ? { cookie } : {} });
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(";");
      const [name, ...value] = pair!.trim().split("=");
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a) || /^\s*expires=Thu, 01 Jan 1970/i.test(a));
      if (expired || value.join("=") === "") jar.delete(name!);
      else jar.set(name!, value.join("="));
    }
    return res;
  }

  /** Follows the redirects from `start` until `stopAt` accepts a location; at most 20 hops. */
  async follow(start: URL, stopAt: (url: URL) => boolean): Promise<URL> {
    let url = this.rewrite(start);
    for (let hop = 0; hop < 20; hop++) {
      const res = await this.get(url);
      const location = res.headers.get("location");
      if (!location || res.status < 300 || res.status >= 400) {
        throw new Error(`${url.href} answered ${res.status} without a redirect: ${(await res.text()).slice(0, 300)}`);
      }
      const next = new URL(location, url);
      if (stopAt(next)) return next;
      url = this.rewrite(next);
    }
    throw new Error("too many redirects");
  }
}
