import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import type { LookupFunction } from "node:net";
import { isIP } from "node:net";
import { Agent, fetch, type RequestInit, type Response } from "undici";
import { addressPolicy, cidrList } from "./special-addresses.js";

/** A request the service refused to send: a non-HTTP scheme, or a host that is or resolves to an internal address. */
export class EgressRefusedError extends Error {
  override name = "EgressRefusedError";
}

/** Every address a host name resolves to, as the operating system's resolver answers (hosts file included). */
export type Resolver = (host: string) => Promise<LookupAddress[]>;

const systemResolver: Resolver = (host) =>
  new Promise((resolve, reject) =>
    dnsLookup(host, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))),
  );

export interface EgressOptions {
  /** CIDRs the operator opened to outbound requests (EGRESS_ALLOW_CIDRS); none by default. */
  allowCidrs: readonly string[];
  resolver?: Resolver;
}

/**
 * Outbound HTTP to URLs a tenant chose. The address is checked when the connection is made, in the
 * socket's own DNS lookup, so the address checked is the address connected to: a name that resolves
 * to a public address once and an internal one the next time (DNS rebinding) cannot slip through.
 * Redirects are never followed here: the caller sees each one and sends the next hop through `fetch` again.
 */
export class Egress {
  private readonly allowed: (ip: string) => boolean;
  private readonly resolver: Resolver;
  private readonly agent: Agent;

  constructor(options: EgressOptions) {
    this.allowed = addressPolicy(cidrList(options.allowCidrs));
    this.resolver = options.resolver ?? systemResolver;
    this.agent = new Agent({ connect: { lookup: this.lookup } });
  }

  /**
   * What can be refused before connecting: a scheme other than HTTP, an internal address literal (a host name is
   * checked when it is looked up, at connection time). Throws EgressRefusedError; lets a URL be refused when saved.
   */
  check(url: URL): void {
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new EgressRefusedError(`${url.protocol} URLs are not fetched, only http: and https:`);
    }
    const host = url.hostname.replace(/^\[|\]$/g, "");
    // The socket does no lookup for an address literal, so it is checked here; it cannot change.
    if (isIP(host)) this.refuseUnlessAllowed(host, host);
  }

  /** One request, without following redirects; throws EgressRefusedError before anything is sent to a refused address. */
  async fetch(url: URL, init: Omit<RequestInit, "redirect" | "dispatcher"> = {}): Promise<Response> {
    this.check(url);
    try {
      return await fetch(url, { ...init, redirect: "manual", dispatcher: this.agent });
    } catch (error) {
      const cause = (error as { cause?: unknown }).cause;
      throw cause instanceof EgressRefusedError ? cause : error;
    }
  }

  /** Ends every connection, requests in flight included: at shutdown nothing waits for a slow site. */
  close(): Promise<void> {
    return this.agent.destroy();
  }

  private refuseUnlessAllowed(host: string, address: string): void {
    if (this.allowed(address)) return;
    const resolves = host === address ? `${host} is` : `${host} resolves to ${address},`;
    throw new EgressRefusedError(`${resolves} a private or reserved address; the service does not connect to internal networks`);
  }

  private readonly lookup: LookupFunction = (host, options, callback) => {
    this.resolver(host)
      .then((addresses) => {
        if (addresses.length === 0) throw Object.assign(new Error(`${host} has no address`), { code: "ENOTFOUND" });
        // One internal address refuses them all: the socket may try any of them.
        for (const { address } of addresses) this.refuseUnlessAllowed(host, address);
        const wanted =
          options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses;
        if (options.all) callback(null, wanted);
        else callback(null, wanted[0]?.address ?? "", wanted[0]?.family ?? 0);
      })
      .catch((error: NodeJS.ErrnoException) => callback(error, "", 0));
  };
}
