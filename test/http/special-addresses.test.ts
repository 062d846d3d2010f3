import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { addressPolicy, cidrList } from "../../src/http/special-addresses.js";

const byDefault = addressPolicy(cidrList([]));

describe("the addresses the service may connect to on a tenant's behalf", () => {
  it.each([
    // IPv4 special-purpose registry
    ["0.0.0.0", "this network"],
    ["0.1.2.3", "this network"],
    ["10.20.30.40", "private"],
    ["100.64.0.1", "carrier-grade NAT"],
    ["100.100.100.200", "Alibaba Cloud metadata"],
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["169.254.169.254", "link-local, cloud metadata"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.0.0.9", "IETF protocol assignments"],
    ["192.0.2.1", "documentation"],
    ["192.88.99.1", "6to4 relay anycast"],
    ["192.168.1.1", "private"],
    ["198.18.0.1", "benchmarking"],
    ["198.19.255.255", "benchmarking"],
    ["198.51.100.7", "documentation"],
    ["203.0.113.7", "documentation"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["240.0.0.1", "reserved"],
    ["255.255.255.255", "limited broadcast"],
    ["168.63.129.16", "Azure wireserver"],
    // IPv6 special-purpose registry
    ["::", "unspecified"],
    ["::1", "loopback"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local with a zone"],
    ["fec0::1", "site-local"],
    ["fc00::1", "unique local"],
    ["fd00:ec2::254", "unique local, AWS metadata"],
    ["ff02::1", "multicast"],
    ["100::1", "discard-only"],
    ["64:ff9b:1::a00:1", "local-use NAT64"],
    ["2001::1", "Teredo"],
    ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo"],
    ["2001:2::1", "benchmarking"],
    ["2001:10::1", "ORCHID"],
    ["2001:20::1", "ORCHIDv2"],
    ["2001:db8::1", "documentation"],
    ["3fff::1", "documentation"],
    ["5f00::1", "SRv6 SIDs"],
    // IPv6 forms that carry an internal IPv4 address
    ["::ffff:127.0.0.1", "IPv4-mapped loopback"],
    ["::ffff:7f00:1", "IPv4-mapped loopback, hex"],
    ["::ffff:a00:1", "IPv4-mapped private"],
    ["::ffff:169.254.169.254", "IPv4-mapped metadata"],
    ["::127.0.0.1", "IPv4-compatible loopback"],
    ["::a9fe:a9fe", "IPv4-compatible metadata"],
    ["::ffff:0:a00:1", "IPv4-translated private"],
    ["64:ff9b::a9fe:a9fe", "NAT64 metadata"],
    ["64:ff9b::127.0.0.1", "NAT64 loopback"],
    ["2002:c0a8:101::1", "6to4 of 192.168.1.1"],
    ["2002:7f00:1::", "6to4 of 127.0.0.1"],
    ["0:0:0:0:0:ffff:7f00:0001", "IPv4-mapped, uncompressed"],
    ["not an address", "malformed"],
    ["", "empty"],
  ])("refuses %s (%s)", (ip) => {
    expect(byDefault(ip)).toBe(false);
  });

  it.each([
    ["8.8.8.8"],
    ["1.1.1.1"],
    ["172.32.0.1"],
    ["100.128.0.1"],
    ["93.184.216.34"],
    ["2606:4700:4700::1111"],
    ["2a00:1450:4001:80b::200e"],
    ["::ffff:8.8.8.8"],
    ["64:ff9b::808:808"],
    ["2002:808:808::1"],
  ])("allows the public address %s", (ip) => {
    expect(byDefault(ip)).toBe(true);
  });

  it("opens the ranges the operator lists, and only those", () => {
    const opened = addressPolicy(cidrList(["10.20.0.0/16", "fd00:1::/64", "127.0.0.1/32"]));
    expect(opened("10.20.3.4")).toBe(true);
    expect(opened("10.21.3.4")).toBe(false);
    expect(opened("fd00:1::5")).toBe(true);
    expect(opened("fd00:2::5")).toBe(false);
    expect(opened("127.0.0.1")).toBe(true);
    expect(opened("::ffff:127.0.0.1")).toBe(true);
    expect(opened("127.0.0.2")).toBe(false);
    expect(opened("::1")).toBe(false);
  });

  it("reads EGRESS_ALLOW_CIDRS from the environment, empty by default, and refuses a malformed one at start", () => {
    expect(loadConfig({}).EGRESS_ALLOW_CIDRS).toEqual([]);
    expect(loadConfig({ EGRESS_ALLOW_CIDRS: "10.0.0.0/8, fd00::/8 127.0.0.1/32" }).EGRESS_ALLOW_CIDRS).toEqual([
      "10.0.0.0/8",
      "fd00::/8",
      "127.0.0.1/32",
    ]);
    for (const bad of ["10.0.0.0", "10.0.0.0/33", "intranet/8", "fd00::/129"]) {
      expect(() => loadConfig({ EGRESS_ALLOW_CIDRS: bad })).toThrow(/EGRESS_ALLOW_CIDRS/);
    }
  });
});
