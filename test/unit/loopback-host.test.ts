import { describe, expect, it } from 'vitest';
import { refuseForeignHost } from '../../infra/local/loopback-host.ts';

describe('the local stack’s Host check (DNS rebinding)', () => {
  it.each([
    'localhost',
    'localhost:3000',
    'LocalHost:3000',
    '127.0.0.1',
    '127.0.0.1:3000',
    '[::1]',
    '[::1]:3000',
  ])('serves %s', (host) => {
    expect(refuseForeignHost(host, '127.0.0.1')).toBeUndefined();
  });

  it.each([
    undefined,
    '',
    'evil.example',
    'evil.example:3000',
    'localhost.evil.example',
    'localhost.',
    '127.0.0.1.nip.io:3000',
    '127.0.0.2:3000',
    'localhost:3000:3000',
    'localhost:abc',
    '[::1]evil',
    'user@localhost:3000',
  ])('refuses %s with 421 and a one-line reason', (host) => {
    const refused = refuseForeignHost(host, '127.0.0.1');
    expect(refused?.statusCode).toBe(421);
    expect(JSON.parse(String(refused?.body)).message).toMatch(/^Misdirected Request: [^\n]+$/);
  });

  it('serves the address it listens on', () => {
    expect(refuseForeignHost('[::1]:3000', '::1')).toBeUndefined();
    expect(refuseForeignHost('10.0.0.5:3000', '10.0.0.5')).toBeUndefined();
    expect(refuseForeignHost('10.0.0.6:3000', '10.0.0.5')?.statusCode).toBe(421);
  });
});
