import { describe, expect, it } from 'vitest';
import { isForbiddenAddress } from '#lib/net/forbidden-address.ts';

// The SSRF guard's address rule alone (pure): every forbidden range at its edges, the IPv6 forms
// that carry an IPv4 address (refused whole, except 6to4, judged by the address it carries), and
// public addresses that must pass.
describe('isForbiddenAddress', () => {
  it.each([
    ['0.0.0.0'],
    ['0.1.2.3'],
    ['10.0.0.1'],
    ['100.64.0.1'],
    ['100.127.255.254'],
    ['127.0.0.1'],
    ['127.255.255.254'],
    ['169.254.169.254'],
    ['172.16.0.1'],
    ['172.31.255.255'],
    ['192.0.0.8'],
    ['192.0.2.1'],
    ['192.168.1.1'],
    ['198.18.0.1'],
    ['198.19.255.255'],
    ['198.51.100.7'],
    ['203.0.113.9'],
    ['224.0.0.251'],
    ['239.255.255.250'],
    ['240.0.0.1'],
    ['255.255.255.255'],
    ['::'],
    ['::1'],
    ['0:0:0:0:0:0:0:1'],
    ['::127.0.0.1'],
    ['::ffff:127.0.0.1'],
    ['::ffff:7f00:1'],
    ['::ffff:169.254.169.254'],
    ['::ffff:10.1.2.3'],
    ['64:ff9b::127.0.0.1'],
    ['64:ff9b::a9fe:a9fe'],
    ['64:ff9b:1::8.8.8.8'],
    ['2002:7f00:1::'],
    ['2002:c0a8:101::1'],
    ['100::1'],
    ['2001:db8::1'],
    ['fc00::1'],
    ['fd00:ec2::254'],
    ['fe80::1'],
    ['fe80::1%eth0'],
    ['febf:ffff::1'],
    ['fec0::1'],
    ['ff02::1'],
    ['localhost'],
    ['not an address'],
    [''],
  ])('refuses %s', (address) => {
    expect(isForbiddenAddress(address)).toBe(true);
  });

  // Each range the guard refuses whatever the address inside it: both edges, and a public IPv4
  // address carried inside, which must not make it acceptable.
  it.each([
    ['IPv4-mapped', '::ffff:0:0'],
    ['IPv4-mapped', '::ffff:93.184.216.34'],
    ['IPv4-mapped', '::ffff:8.8.8.8'],
    ['IPv4-mapped', '::ffff:ffff:ffff'],
    ['NAT64 well-known', '64:ff9b::'],
    ['NAT64 well-known', '64:ff9b::93.184.216.34'],
    ['NAT64 well-known', '64:ff9b::ffff:ffff'],
    ['Teredo', '2001::'],
    ['Teredo', '2001:0:4136:e378:8000:63bf:3fff:fdd2'],
    ['Teredo', '2001:0:ffff:ffff:ffff:ffff:ffff:ffff'],
    ['documentation 3fff::/20', '3fff::1'],
    ['documentation 3fff::/20', '3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff'],
    ['6to4 relay anycast', '192.88.99.0'],
    ['6to4 relay anycast', '192.88.99.1'],
    ['6to4 relay anycast', '192.88.99.255'],
    ['6to4 relay anycast, in 6to4 form', '2002:c058:6301::'],
  ])('refuses %s whatever it carries: %s', (_range, address) => {
    expect(isForbiddenAddress(address)).toBe(true);
  });

  it.each([
    ['93.184.216.34'],
    ['8.8.8.8'],
    ['1.1.1.1'],
    ['100.63.255.255'],
    ['100.128.0.0'],
    ['172.15.255.255'],
    ['172.32.0.0'],
    ['169.253.255.255'],
    ['223.255.255.255'],
    ['2606:2800:220:1:248:1893:25c8:1946'],
    ['2a00:1450:4001:82b::200e'],
    ['2002:5db8:d822::1'],
    ['2001:db9::1'],
    ['2001:1::1'],
    ['3ffe:ffff::1'],
    ['4000::1'],
    ['192.88.98.255'],
    ['192.88.100.0'],
  ])('allows the public address %s', (address) => {
    expect(isForbiddenAddress(address)).toBe(false);
  });
});
