import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";

/**
 * Addresses a crawl must never reach from the service's network position: a tenant could otherwise point
 * the crawler at the database, the cloud metadata service or the bank's intranet (server-side request forgery).
 */
const refused = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8], // "this network", includes the unspecified address
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT; also Alibaba Cloud's metadata service
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local; AWS, GCP and Azure metadata at 169.254.169.254
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, and the broadcast address
] as const) {
  refused.addSubnet(network, prefix, "ipv4");
}
// Azure's platform endpoint (wireserver) sits in a public range but answers only to its own VMs.
refused.addAddress("168.63.129.16", "ipv4");
for (const [network, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7], // unique local; AWS's IPv6 metadata at fd00:ec2::254
  ["fe80::", 10],
  ["ff00::", 8],
  ["2001:db8::", 32],
  ["100::", 64], // discard-only
] as const) {
  refused.addSubnet(network, prefix, "ipv6");
}

/** IPv4 addresses carried inside IPv6 ones (NAT64 and 6to4), which reach the same hosts as the IPv4 address itself. */
function embeddedIpv4(ip: string): string | null {
  const groups = expandIpv6(ip);
  if (!groups) return null;
  const toIpv4 = (high: number, low: number) => [high >> 8, high & 255, low >> 8, low & 255].join(".");
  if (groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((g) => g === 0)) {
    return toIpv4(groups[6]!, groups[7]!);
  }
  if (groups[0] === 0x2002) return toIpv4(groups[1]!, groups[2]!);
  return null;
}

function expandIpv6(ip: string): number[] | null {
  // The URL parser canonicalises IPv6, including a dotted IPv4 tail, into eight hex groups at most.
  const canonical = new URL(`http://[${ip}]/`).hostname.slice(1, -1);
  const [head = "", tail] = canonical.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = [...left, ...Array(8 - left.length - right.length).fill("0"), ...right].map((g) => Number.parseInt(g, 16));
  return groups.length === 8 ? groups : null;
}

/** True for an address on the public internet; false for private, loopback, link-local, metadata and malformed ones. */
export function isPublicAddress(ip: string): boolean {
  const family = isIP(ip);
  if (family === 4) return !refused.check(ip, "ipv4");
  if (family !== 6) return false;
  // BlockList also applies its IPv4 rules to IPv4-mapped addresses (::ffff:127.0.0.1).
  if (refused.check(ip, "ipv6")) return false;
  const inner = embeddedIpv4(ip);
  return inner === null || isPublicAddress(inner);
}

export class PrivateAddressError extends Error {
  constructor(
    readonly host: string,
    readonly address: string,
  ) {
    super(`${host} resolves to ${address}, a private or reserved address; the crawler does not fetch from private networks`);
    this.name = "PrivateAddressError";
  }
}

/** Resolves a URL's host and throws PrivateAddressError if any of its addresses is not public. */
export async function assertPublicHost(url: URL): Promise<void> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const addresses = isIP(host) ? [host] : (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
  const blocked = addresses.find((address) => !isPublicAddress(address));
  if (blocked !== undefined) throw new PrivateAddressError(host, blocked);
}
