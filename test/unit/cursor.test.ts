import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { secretsManager } from '#lib/config/secrets.ts';
import { type CursorBinding, decodeCursor, encodeCursor, keyPart, keyValue } from '#lib/db/cursor.ts';
import { parseCursorKeys } from '#lib/db/cursor-keys.ts';
import { ValidationError } from '#lib/http/errors.ts';
import * as z from '#lib/validation/zod.ts';

const OLD_KEY = 'unit-test-cursor-key-old';
const NEW_KEY = 'unit-test-cursor-key-new';

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
    pk: keyValue(BUSINESS),
    sk: keyPart('RECORD#faq#'),
    gsi1pk: keyValue(`${BUSINESS}#faq`),
    gsi1sk: keyPart(''),
  });

/** The keys the local path reads (CURSOR_SECRET), as the harness or an operator writes them. */
const useLocalKeys = (raw: string) => vi.stubEnv('CURSOR_SECRET', raw);

/** The cursor of `lastKey` on the first page of `binding`, signed with the keys set now. */
const issued = async () => (await encodeCursor(binding, lastKey)) as string;

/** The 422 a refused cursor answers, naming the cursor parameter. */
async function refused(decoding: Promise<unknown>) {
  const error = await decoding.then(
    () => new Error('the cursor was accepted'),
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ValidationError);
  expect((error as ValidationError).details).toEqual([
    expect.objectContaining({ loc: ['query', 'cursor'], type: 'cursor' }),
  ]);
}

beforeEach(() => {
  vi.stubEnv('CURSOR_SECRET_ID', '');
  useLocalKeys(OLD_KEY);
});
afterEach(() => {
  vi.unstubAllEnvs();
});

describe('list cursors', () => {
  it('give back the key they were issued for, for the same query', async () => {
    const cursor = await issued();

    await expect(decodeCursor(cursor, binding, keyShape())).resolves.toEqual(lastKey);
    await expect(decodeCursor(undefined, binding, keyShape())).resolves.toBeUndefined();
    await expect(encodeCursor(binding, undefined)).resolves.toBeNull();
  });

  it('are refused for another query: another business, list or filter', async () => {
    const cursor = await issued();

    for (const other of [
      ['records', '0a9c3e55-7d4b-4f0e-8b1a-2c3d4e5f6a7b', 'faq'],
      ['records', binding[1] as string, 'service'],
      ['changesets', binding[1] as string, null],
      ['records', binding[1] as string, 'faq', 'extra'],
    ] as const) {
      await refused(decodeCursor(cursor, other, keyShape()));
    }
  });

  it('are refused when forged or altered, whatever the payload', async () => {
    const cursor = await issued();
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
      await refused(decodeCursor(forged, binding, keyShape()));
    }
  });

  it('check the key shape even when the mac holds (an empty or foreign key never reaches DynamoDB)', async () => {
    for (const key of [
      { ...lastKey, gsi1sk: '' },
      { ...lastKey, sk: 'RECORD#faq#' },
      { ...lastKey, pk: 'BUSINESS#another' },
      { ...lastKey, extra: 'x' },
      { ...lastKey, sk: 42 },
      ['', 'RECORD#faq#x'],
    ]) {
      const cursor = (await encodeCursor(binding, key as Record<string, unknown>)) as string;
      await refused(decodeCursor(cursor, binding, keyShape()));
    }
  });
});

describe('list cursors across a key rotation', () => {
  it('still decode when the key that signed them is listed as previous, and new ones are signed with current', async () => {
    const signedWithOld = await issued();

    for (const rotating of [
      JSON.stringify({ current: NEW_KEY, previous: OLD_KEY }),
      JSON.stringify({ previous: OLD_KEY, current: NEW_KEY }),
      `${NEW_KEY},${OLD_KEY}`,
      JSON.stringify([NEW_KEY, OLD_KEY]),
    ]) {
      useLocalKeys(rotating);
      await expect(decodeCursor(signedWithOld, binding, keyShape())).resolves.toEqual(lastKey);
      const signedNow = await issued();

      useLocalKeys(NEW_KEY);
      await expect(decodeCursor(signedNow, binding, keyShape()), rotating).resolves.toEqual(lastKey);
      useLocalKeys(OLD_KEY);
      await refused(decodeCursor(signedNow, binding, keyShape()));
    }
  });

  it('are refused once the key that signed them is no longer listed', async () => {
    const signedWithOld = await issued();

    for (const rotated of [NEW_KEY, JSON.stringify({ current: NEW_KEY })]) {
      useLocalKeys(rotated);
      await refused(decodeCursor(signedWithOld, binding, keyShape()));
    }
  });

  it('need a key to be set, and say so', async () => {
    vi.stubEnv('CURSOR_SECRET', '');

    await expect(issued()).rejects.toThrow('Set CURSOR_SECRET_ID or CURSOR_SECRET');
    // Nothing to sign or check: no key is needed.
    await expect(encodeCursor(binding, undefined)).resolves.toBeNull();
    await expect(decodeCursor(undefined, binding, keyShape())).resolves.toBeUndefined();
  });
});

describe('cursor key text', () => {
  it('is refused unless it lists at least one non-empty key, without echoing what it holds', () => {
    for (const unusable of [
      ' ',
      'a,,b',
      '[]',
      '["hidden-value", 1]',
      '{"previous":"hidden-value"}',
      '{"current":""}',
      '{"current":"hidden-value","next":"b"}',
      '{"current":"hidden-value"',
    ]) {
      expect(() => parseCursorKeys(unusable), unusable).toThrow(/^The cursor key must be one key/);
      try {
        parseCursorKeys(unusable);
      } catch (error) {
        expect((error as Error).message).not.toContain('hidden-value');
        expect((error as Error).cause).toBeUndefined();
      }
    }
  });

  it('signs with the first key listed, or with current', () => {
    const bytes = (key: string) => Buffer.from(key, 'utf8');

    expect(parseCursorKeys(` ${OLD_KEY}\n`)).toEqual({ signing: bytes(OLD_KEY), accepted: [bytes(OLD_KEY)] });
    expect(parseCursorKeys(`${NEW_KEY}, ${OLD_KEY}`).accepted).toEqual([bytes(NEW_KEY), bytes(OLD_KEY)]);
    expect(parseCursorKeys(JSON.stringify({ previous: OLD_KEY, current: NEW_KEY }))).toEqual({
      signing: bytes(NEW_KEY),
      accepted: [bytes(NEW_KEY), bytes(OLD_KEY)],
    });
  });
});

describe('list cursor keys in Secrets Manager (AWS answer injected: no local emulator has Secrets Manager)', () => {
  const SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:111122223333:secret:cursor-keys-AbCdEf';
  const MIDDLEWARE = 'answerGetSecretValueAsSecretsManagerWould';
  let secretString = '';
  const requested: unknown[] = [];

  beforeEach(() => {
    vi.stubEnv('CURSOR_SECRET_ID', SECRET_ARN);
    vi.stubEnv('CURSOR_SECRET', '');
    vi.useFakeTimers({ toFake: ['Date'] });
    requested.length = 0;
    secretsManager().middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName !== 'GetSecretValueCommand') return next(args);
        requested.push(args.input);
        return {
          output: {
            $metadata: { httpStatusCode: 200 },
            ARN: SECRET_ARN,
            Name: 'cursor-keys',
            SecretString: secretString,
          },
          response: {},
        };
      },
      { step: 'initialize', name: MIDDLEWARE },
    );
  });
  afterEach(() => {
    secretsManager().middlewareStack.remove(MIDDLEWARE);
    vi.useRealTimers();
  });

  it('are read once, kept 5 minutes, and a rotation written to the secret is taken up after that', async () => {
    secretString = JSON.stringify({ current: OLD_KEY });
    const signedWithOld = await issued();
    await expect(decodeCursor(signedWithOld, binding, keyShape())).resolves.toEqual(lastKey);
    await issued();

    expect(requested).toEqual([{ SecretId: SECRET_ARN }]);

    // The operator rotates: the new key signs, the old one is still accepted.
    secretString = JSON.stringify({ current: NEW_KEY, previous: OLD_KEY });
    vi.setSystemTime(Date.now() + 299_000);
    await issued();
    expect(requested).toHaveLength(1);

    vi.setSystemTime(Date.now() + 2_000);
    const signedWithNew = await issued();
    expect(requested).toHaveLength(2);
    await expect(decodeCursor(signedWithOld, binding, keyShape())).resolves.toEqual(lastKey);

    useLocalKeys(NEW_KEY);
    vi.stubEnv('CURSOR_SECRET_ID', '');
    await expect(decodeCursor(signedWithNew, binding, keyShape())).resolves.toEqual(lastKey);
  });
});
