import { BlockList, isIP } from 'node:net';

/**
 * IPv4 ranges a server-side fetch must never reach: this host, the private networks (a Lambda in
 * a VPC sits in one), link-local (cloud metadata at 169.254.169.254), carrier-grade NAT, and the
 * reserved, documentation, benchmark and multicast blocks, where no public document lives.
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
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // TEST-NET-2
  ['203.0.113.0', 24], // TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, including the broadcast 255.255.255.255
];

/** IPv6 ranges that are never a public web server, whatever IPv4 address they may carry. */
const FORBIDDEN_IPV6: readonly [network: string, prefix: number][] = [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['::', 96], // IPv4-compatible (deprecated): nothing legitimate uses it any more
  ['64:ff9b:1::', 48], // local-use NAT64: translates into whatever network the operator chose
  ['100::', 64], // discard-only
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local (AWS IMDS answers on fd00:ec2::254)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
];

/**
 * IPv6 forms that carry an IPv4 address, and where it sits: IPv4-mapped (::ffff:a.b.c.d, what a
 * dual-stack socket turns into an IPv4 connection), NAT64 (64:ff9b::a.b.c.d, what DNS64 hands an
 * IPv6-only Lambda) and 6to4 (2002:aabb:ccdd::). Each is as forbidden as the address it carries,
 * and as allowed: a NAT64 address of a public server is the normal case in an IPv6-only subnet.
 */
const IPV4_CARRIERS: readonly ((network: string, prefix: number) => [network: string, prefix: number])[] = [
  (network, prefix) => [`::ffff:${network}`, 96 + prefix],
  (network, prefix) => [`64:ff9b::${network}`, 96 + prefix],
  (network, prefix) => [`2002:${hexGroups(network)}::`, 16 + prefix],
];

/** a.b.c.d as the two hexadecimal IPv6 groups that spell the same 32 bits. */
function hexGroups(ipv4: string): string {
  const [a = 0, b = 0, c = 0, d = 0] = ipv4.split('.').map(Number);
  return `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

const forbidden = new BlockList();
for (const [network, prefix] of FORBIDDEN_IPV4) {
  forbidden.addSubnet(network, prefix, 'ipv4');
  for (const carry of IPV4_CARRIERS) forbidden.addSubnet(...carry(network, prefix), 'ipv6');
}
for (const [network, prefix] of FORBIDDEN_IPV6) forbidden.addSubnet(network, prefix, 'ipv6');

/**
 * Whether a server-side fetch must refuse to connect to this address. Anything that is not a plain
 * IPv4 or IPv6 address is refused too (fail closed), including an IPv6 address with a zone
 * (`fe80::1%eth0`): BlockList does not understand zones, and only link-local and multicast
 * addresses, both forbidden anyway, have one.
 */
export function isForbiddenAddress(ip: string): boolean {
  const family = isIP(ip);
  if (family === 0 || ip.includes('%')) return true;
  return forbidden.check(ip, family === 4 ? 'ipv4' : 'ipv6');
}
