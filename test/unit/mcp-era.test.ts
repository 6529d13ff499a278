import { describe, expect, it } from 'vitest';
import { acceptsBatch, mapBounded } from '#lib/mcp/batch.ts';
import { detectEra } from '#lib/mcp/era.ts';
import { decodeHeaderValue } from '#lib/mcp/request-headers.ts';

const request = (method: string, meta?: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id: 1,
  method,
  params: meta ? { _meta: meta } : {},
});
const modernMeta = (version: unknown) => ({ 'io.modelcontextprotocol/protocolVersion': version });

describe('detectEra', () => {
  it.each([
    ['a legacy header and no _meta version', '2025-11-25', request('tools/list'), 'legacy'],
    ['no header and no _meta version', undefined, request('tools/list'), 'legacy'],
    ['a header we do not know and no _meta version', '1999-01-01', request('tools/list'), 'legacy'],
    ['initialize, even under a modern header', '2026-07-28', request('initialize'), 'legacy'],
    ['a legacy version in both', '2025-06-18', request('tools/list', modernMeta('2025-06-18')), 'legacy'],
    ['the modern header alone', '2026-07-28', request('tools/list'), 'modern'],
    [
      'a modern _meta version without the header',
      undefined,
      request('tools/list', modernMeta('2026-07-28')),
      'modern',
    ],
    ['an unknown _meta version', '2027-01-01', request('tools/list', modernMeta('2027-01-01')), 'modern'],
    ['a _meta version that is no string', undefined, request('tools/list', modernMeta(7)), 'modern'],
    [
      'a modern _meta version under a legacy header',
      '2025-11-25',
      request('tools/list', modernMeta('2026-07-28')),
      'modern',
    ],
    [
      'a batch with one modern message',
      '2025-03-26',
      [request('ping'), request('tools/list', modernMeta('2026-07-28'))],
      'modern',
    ],
    ['a batch of legacy messages', '2025-03-26', [request('ping'), request('tools/list')], 'legacy'],
    ['a body that is no message', '2025-11-25', 'ping', 'legacy'],
  ])('takes %s as %s', (_name, header, body, era) => {
    expect(detectEra(header, body)).toBe(era);
  });
});

describe('decodeHeaderValue', () => {
  it.each([
    ['a plain value', 'list_businesses', 'list_businesses'],
    [
      'Base64 of non-ASCII text',
      `=?base64?${Buffer.from('Grüße, 世界').toString('base64')}?=`,
      'Grüße, 世界',
    ],
    [
      'Base64 of a value that looks encoded',
      `=?base64?${Buffer.from('=?base64?x?=').toString('base64')}?=`,
      '=?base64?x?=',
    ],
    ['an upper-case marker, which is no marker', '=?BASE64?YQ==?=', '=?BASE64?YQ==?='],
  ])('reads %s', (_name, header, value) => {
    expect(decodeHeaderValue(header)).toBe(value);
  });

  it('gives nothing for Base64 that is not UTF-8 text', () => {
    expect(decodeHeaderValue(`=?base64?${Buffer.from([0xff, 0xfe]).toString('base64')}?=`)).toBeUndefined();
  });
});

describe('batches', () => {
  it.each([
    [undefined, true],
    ['2025-03-26', true],
    ['2024-11-05', false],
    ['2025-06-18', false],
    ['2025-11-25', false],
  ])('accepts a batch under the version header %j: %s', (version, accepts) => {
    expect(acceptsBatch(version)).toBe(accepts);
  });

  it('runs at most the given number at a time and answers in the items’ order', async () => {
    let running = 0;
    let most = 0;
    const releases: (() => void)[] = [];
    const run = async (item: number) => {
      running += 1;
      most = Math.max(most, running);
      await new Promise<void>((resolve) => releases.push(resolve));
      running -= 1;
      return item * 10;
    };

    const done = mapBounded([1, 2, 3, 4, 5, 6, 7], 3, run);
    // Release the waiting runs one at a time, last started first, until all seven have run.
    for (let released = 0; released < 7; released += 1) {
      await new Promise((resolve) => setImmediate(resolve));
      releases.pop()?.();
    }

    expect(await done).toEqual([10, 20, 30, 40, 50, 60, 70]);
    expect(most).toBe(3);
  });
});
