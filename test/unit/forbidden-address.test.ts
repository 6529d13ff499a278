import { describe, expect, it } from 'vitest';
import { isForbiddenAddress } from '#lib/net/forbidden-address.ts';

// The SSRF guard's address rule alone (pure): every forbidden range at its edges, the mapped,
// NAT64 and 6to4 forms of forbidden IPv4 addresses, and public addresses that must pass.
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
    ['::ffff:93.184.216.34'],
    ['64:ff9b::93.184.216.34'],
    ['2002:5db8:d822::1'],
  ])('allows the public address %s', (address) => {
    expect(isForbiddenAddress(address)).toBe(false);
  });
});
