import { beforeAll, describe, expect, it } from 'vitest';
import type { CursorBinding } from '#lib/db/cursor.ts';
import { ValidationError } from '#lib/http/errors.ts';
import * as z from '#lib/validation/zod.ts';

let cursors: typeof import('#lib/db/cursor.ts');
beforeAll(async () => {
  process.env.CURSOR_SECRET = 'unit-test-cursor-secret';
  cursors = await import('#lib/db/cursor.ts');
});

const BUSINESS = 'BUSINESS#6f1c1b3e-6c1e-4a53-9d1e-0e8f1f0c2a11';
const binding: CursorBinding = ['records', '6f1c1b3e-6c1e-4a53-9d1e-0e8f1f0c2a11', 'faq'];
const lastKey = {
  pk: BUSINESS,
  sk: 'RECORD#faq#1b0e2a4c-0d55-4c38-9a57-1f0b3c9d7e21',
  gsi1pk: `${BUSINESS}#faq`,
  gsi1sk: '~#2025-01-01T00:00:00.000Z#1b0e2a4c-0d55-4c38-9a57-1f0b3c9d7e21',
};
const keyShape = () =>
  z.strictObject({
    pk: cursors.keyValue(BUSINESS),
    sk: cursors.keyPart('RECORD#faq#'),
    gsi1pk: cursors.keyValue(`${BUSINESS}#faq`),
    gsi1sk: cursors.keyPart(''),
  });

/** The 422 a refused cursor answers, naming the cursor parameter. */
function refused(run: () => unknown) {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).details).toEqual([
      expect.objectContaining({ loc: ['query', 'cursor'], type: 'cursor' }),
    ]);
    return;
  }
  throw new Error('the cursor was accepted');
}

describe('list cursors', () => {
  it('give back the key they were issued for, for the same query', () => {
    const cursor = cursors.encodeCursor(binding, lastKey) as string;

    expect(cursors.decodeCursor(cursor, binding, keyShape())).toEqual(lastKey);
    expect(cursors.decodeCursor(undefined, binding, keyShape())).toBeUndefined();
    expect(cursors.encodeCursor(binding, undefined)).toBeNull();
  });

  it('are refused for another query: another business, list or filter', () => {
    const cursor = cursors.encodeCursor(binding, lastKey) as string;

    for (const other of [
      ['records', '0a9c3e55-7d4b-4f0e-8b1a-2c3d4e5f6a7b', 'faq'],
      ['records', binding[1] as string, 'service'],
      ['changesets', binding[1] as string, null],
      ['records', binding[1] as string, 'faq', 'extra'],
    ] as const) {
      refused(() => cursors.decodeCursor(cursor, other, keyShape()));
    }
  });

  it('are refused when forged or altered, whatever the payload', () => {
    const cursor = cursors.encodeCursor(binding, lastKey) as string;
    const [payload, mac] = cursor.split('.') as [string, string];
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

    for (const forged of [
      encode(['', 'RECORD#faq#x']),
      `${encode(['', 'RECORD#faq#x'])}.${mac}`,
      `${encode({ ...lastKey, sk: 'RECORD#faq#' })}.${mac}`,
      `${payload}.${mac.slice(0, -2)}`,
      `${payload}.${mac}.x`,
      `${payload}.`,
      `.${mac}`,
      '',
      'garbage',
      `${payload}.${Buffer.alloc(16).toString('base64url')}`,
    ]) {
      refused(() => cursors.decodeCursor(forged, binding, keyShape()));
    }
  });

  it('check the key shape even when the mac holds (an empty or foreign key never reaches DynamoDB)', () => {
    for (const key of [
      { ...lastKey, gsi1sk: '' },
      { ...lastKey, sk: 'RECORD#faq#' },
      { ...lastKey, pk: 'BUSINESS#another' },
      { ...lastKey, extra: 'x' },
      { ...lastKey, sk: 42 },
      ['', 'RECORD#faq#x'],
    ]) {
      const cursor = cursors.encodeCursor(binding, key as Record<string, unknown>) as string;
      refused(() => cursors.decodeCursor(cursor, binding, keyShape()));
    }
  });
});
