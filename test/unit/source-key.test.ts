import { describe, expect, it } from 'vitest';
import { sourceKey } from '#lib/rate/source-key.ts';

describe('sourceKey: what a per-source limit counts a caller under', () => {
  it('keys an IPv4 address by itself, also when a dual-stack socket writes it IPv4-mapped', () => {
    expect(sourceKey('203.0.113.7')).toBe('203.0.113.7');
    expect(sourceKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(sourceKey('::FFFF:203.0.113.7')).toBe('203.0.113.7');
  });

  it('keys every address of one IPv6 /64 alike, however it is written', () => {
    const key = sourceKey('2001:db8:1:2::1');
    expect(key).toBe('2001:db8:1:2::/64');
    for (const address of [
      '2001:db8:1:2:ffff:ffff:ffff:ffff',
      '2001:0db8:0001:0002:0000:0000:0000:0042',
      '2001:DB8:1:2:a:b:c:d',
      '2001:db8:1:2::1%eth0',
      '2001:db8:1:2::192.0.2.1',
    ]) {
      expect(sourceKey(address), address).toBe(key);
    }
  });

  it('keys neighbouring /64s apart, and fills the zeros a short form leaves out', () => {
    expect(sourceKey('2001:db8:1:3::1')).not.toBe(sourceKey('2001:db8:1:2::1'));
    expect(sourceKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(sourceKey('::1')).toBe('0:0:0:0::/64');
    expect(sourceKey('fe80::1')).toBe('fe80:0:0:0::/64');
  });
});
