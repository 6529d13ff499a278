import { BlockList, isIP } from 'node:net';

/**
 * IPv4 ranges a server-side fetch must never reach: this host, the private networks (a Lambda in
 * a VPC sits in one), link-local (cloud metadata at 169.254.169.254), carrier-grade NAT, and the
 * reserved, documentation, benchmark, relay and multicast blocks, where no public document lives.
 */
const FORBIDDEN_IPV4: readonly [network: string, prefix: number][] = [
  ['0.0.0.0', 8], // "this network"; 0.0.0.0 reaches the local host on Linux
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata services
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // TEST-NET-1
  ['192.88.99.0', 24], // 6to4 relay anycast (deprecated): a tunnel entry, never a web server
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // TEST-NET-2
  ['203.0.113.0', 24], // TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, including the broadcast 255.255.255.255
];

/**
 * IPv6 ranges that are never a public web server, whatever they carry. Forms that embed an IPv4
 * address are refused whole rather than judged by the address inside, because each one is either
 * never a public server's address or translated into a network this service does not control:
 *
 * - IPv4-mapped (::ffff:a.b.c.d, see IPV4_MAPPED) is how a dual-stack socket writes an IPv4
 *   connection; DNS never legitimately answers with it, so an AAAA record of that form is someone
 *   aiming the fetch;
 * - NAT64 (64:ff9b::/96 and the local-use 64:ff9b:1::/48) is what DNS64 hands an IPv6-only
 *   client. The functions here are not IPv6-only and have no DNS64, so a public document never
 *   resolves there; an address in it would reach whatever a NAT64 gateway in the VPC translates
 *   it to;
 * - Teredo (2001::/32) hides the IPv4 addresses of both tunnel ends (one of them XOR-obfuscated),
 *   so no check of the carried address is possible.
 */
const FORBIDDEN_IPV6: readonly [network: string, prefix: number][] = [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['::', 96], // IPv4-compatible (deprecated): nothing legitimate uses it any more
  ['64:ff9b::', 96], // NAT64, well-known prefix
  ['64:ff9b:1::', 48], // NAT64, local-use prefix
  ['100::', 64], // discard-only
  ['2001::', 32], // Teredo
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation
  ['fc00::', 7], // unique local (AWS IMDS answers on fd00:ec2::254)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
];

/**
 * 6to4 (2002:aabb:ccdd::/48) carries the IPv4 address of its tunnel end in clear, so it is judged
 * by that address: as forbidden as the address it carries, and as allowed.
 */
const in6to4 = (network: string, prefix: number): [network: string, prefix: number] => [
  `2002:${hexGroups(network)}::`,
  16 + prefix,
];

/** a.b.c.d as the two hexadecimal IPv6 groups that spell the same 32 bits. */
function hexGroups(ipv4: string): string {
  const [a = 0, b = 0, c = 0, d = 0] = ipv4.split('.').map(Number);
  return `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

const forbidden = new BlockList();
for (const [network, prefix] of FORBIDDEN_IPV4) {
  forbidden.addSubnet(network, prefix, 'ipv4');
  forbidden.addSubnet(...in6to4(network, prefix), 'ipv6');
}
for (const [network, prefix] of FORBIDDEN_IPV6) forbidden.addSubnet(network, prefix, 'ipv6');

/**
 * IPv4-mapped addresses (::ffff:0:0/96), in a list of their own: BlockList checks a plain IPv4
 * address against IPv6 rules in its mapped form, so this range among the others would refuse
 * every IPv4 address. Only an address written as IPv6 is checked against it.
 */
const IPV4_MAPPED = new BlockList();
IPV4_MAPPED.addSubnet('::ffff:0:0', 96, 'ipv6');

/**
 * Whether a server-side fetch must refuse to connect to this address. Anything that is not a plain
 * IPv4 or IPv6 address is refused too (fail closed), including an IPv6 address with a zone
 * (`fe80::1%eth0`): BlockList does not understand zones, and only link-local and multicast
 * addresses, both forbidden anyway, have one.
 */
export function isForbiddenAddress(ip: string): boolean {
  const family = isIP(ip);
  if (family === 0 || ip.includes('%')) return true;
  if (family === 6 && IPV4_MAPPED.check(ip, 'ipv6')) return true;
  return forbidden.check(ip, family === 4 ? 'ipv4' : 'ipv6');
}
