import { BlockList, isIP } from "node:net";

/**
 * Which addresses the service may connect to on a tenant's behalf. A tenant could otherwise point the
 * service at the database, the cloud metadata endpoint or the bank's intranet (server-side request forgery).
 * Built from the IANA IPv4 and IPv6 special-purpose address registries; only the operator opens ranges.
 */
const internalIpv4 = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8], // "this network", with the unspecified address
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT; Alibaba Cloud's metadata service
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local; AWS, GCP, Azure and Oracle metadata at 169.254.169.254
  ["172.16.0.0", 12],
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation
  ["192.88.99.0", 24], // the deprecated 6to4 relay anycast
  ["192.168.0.0", 16],
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation
  ["203.0.113.0", 24], // documentation
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, with the limited broadcast address
] as const) {
  internalIpv4.addSubnet(network, prefix, "ipv4");
}
// Azure's platform endpoint (wireserver) sits in a public range but answers only to its own VMs.
internalIpv4.addAddress("168.63.129.16", "ipv4");

// Outside 2000::/3 (global unicast) everything is special: loopback, unspecified, unique local, link-local,
// site-local, multicast, discard-only, local-use NAT64 (64:ff9b:1::/48), SRv6 SIDs; the forms that carry an
// IPv4 address are judged by that address first.
const globalUnicast = new BlockList();
globalUnicast.addSubnet("2000::", 3, "ipv6");
const internalGlobalIpv6 = new BlockList();
for (const [network, prefix] of [
  ["2001::", 23], // IETF protocol assignments: Teredo, benchmarking, ORCHID, AMT, AS112, DRIP
  ["2001:db8::", 32], // documentation
  ["3fff::", 20], // documentation
] as const) {
  internalGlobalIpv6.addSubnet(network, prefix, "ipv6");
}

/** Sixteen bytes of an IPv6 address, or null if it is not one. */
function ipv6Bytes(ip: string): number[] | null {
  if (isIP(ip) !== 6) return null;
  // The URL parser canonicalises IPv6, a dotted IPv4 tail included, into at most eight hex groups.
  const canonical = new URL(`http://[${ip.replace(/%.*$/, "")}]/`).hostname.slice(1, -1);
  const [head = "", tail] = canonical.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = [...left, ...Array(8 - left.length - right.length).fill("0"), ...right].map((g) => Number.parseInt(g, 16));
  return groups.flatMap((group) => [group >> 8, group & 255]);
}

const zeros = (bytes: number[], from: number, to: number) => bytes.slice(from, to).every((byte) => byte === 0);

/**
 * The IPv4 address an IPv6 one reaches the same host as: IPv4-mapped (::ffff:0:0/96), IPv4-compatible
 * (::/96), IPv4-translated (::ffff:0:0:0/96), NAT64 (64:ff9b::/96) and 6to4 (2002::/16).
 */
function embeddedIpv4(bytes: number[]): string | null {
  const ipv4 = (at: number) => bytes.slice(at, at + 4).join(".");
  if (zeros(bytes, 0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return ipv4(12);
  if (zeros(bytes, 0, 12)) return ipv4(12);
  if (zeros(bytes, 0, 8) && bytes[8] === 0xff && bytes[9] === 0xff && zeros(bytes, 10, 12)) return ipv4(12);
  if (bytes[0] === 0 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zeros(bytes, 4, 12)) return ipv4(12);
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return ipv4(2);
  return null;
}

/** CIDRs the operator opened (EGRESS_ALLOW_CIDRS), as a BlockList to match addresses against. */
export function cidrList(cidrs: readonly string[]): BlockList {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [network = "", prefix] = cidr.split("/");
    const family = isIP(network);
    if (!family || prefix === undefined || !/^\d+$/.test(prefix) || Number(prefix) > (family === 4 ? 32 : 128)) {
      throw new Error(`${cidr} is not a CIDR such as 10.0.0.0/8 or fd00::/8`);
    }
    list.addSubnet(network, Number(prefix), family === 4 ? "ipv4" : "ipv6");
  }
  return list;
}

/** Decides whether the service may connect to an address: public ones, and those the operator opened. */
export function addressPolicy(opened: BlockList): (ip: string) => boolean {
  const allowed = (ip: string): boolean => {
    const family = isIP(ip);
    if (family === 4) return opened.check(ip, "ipv4") || !internalIpv4.check(ip, "ipv4");
    if (family !== 6) return false;
    const bare = ip.replace(/%.*$/, "");
    if (opened.check(bare, "ipv6")) return true;
    const bytes = ipv6Bytes(bare)!;
    const ipv4 = embeddedIpv4(bytes);
    if (ipv4 !== null) return allowed(ipv4);
    return globalUnicast.check(bare, "ipv6") && !internalGlobalIpv6.check(bare, "ipv6");
  };
  return allowed;
}
