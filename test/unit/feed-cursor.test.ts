import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { encodeCursor } from '#lib/db/cursor.ts';
import { decodeFeedCursor, encodeFeedCursor, nextSince } from '#lib/events/feed-cursor.ts';
import { GoneError, ValidationError } from '#lib/http/errors.ts';

const DAY_MS = 24 * 3600 * 1000;
const NOW = new Date('2026-03-01T12:00:00.000Z');
const ago = (ms: number) => new Date(NOW.getTime() - ms);

async function refusal(decoding: Promise<unknown>) {
  return decoding.then(
    () => new Error('the cursor was accepted'),
    (thrown: unknown) => thrown,
  );
}

beforeEach(() => {
  vi.stubEnv('CURSOR_SECRET_ID', '');
  vi.stubEnv('CURSOR_SECRET', 'unit-test-feed-cursor-key');
});
afterEach(() => {
  vi.unstubAllEnvs();
});

describe('the event feed cursor', () => {
  it('gives back its position, and nothing without a cursor', async () => {
    const position = { seq: 42, since: ago(DAY_MS) };
    await expect(decodeFeedCursor(await encodeFeedCursor(position), NOW)).resolves.toEqual(position);
    await expect(decodeFeedCursor(undefined, NOW)).resolves.toBeUndefined();
  });

  it('is good for 30 days from its since, and answers 410 after', async () => {
    const within = await encodeFeedCursor({ seq: 1, since: ago(30 * DAY_MS) });
    const past = await encodeFeedCursor({ seq: 1, since: ago(30 * DAY_MS + 1) });

    await expect(decodeFeedCursor(within, NOW)).resolves.toMatchObject({ seq: 1 });
    const gone = await refusal(decodeFeedCursor(past, NOW));
    expect(gone).toBeInstanceOf(GoneError);
    expect((gone as GoneError).statusCode).toBe(410);
  });

  it('refuses what it did not give out with a 422 naming after: other shapes, a list cursor, altered, unsafe', async () => {
    const listCursor = (await encodeCursor(['records', 'b', 'faq'], { pk: 'x', sk: 'y' })) as string;
    const sameKeyOtherShape = (await encodeCursor(['events'], {
      seq: '1',
      since: NOW.toISOString(),
    })) as string;
    const unsafe = (await encodeCursor(['events'], {
      seq: '9999999999999999',
      since: NOW.toISOString(),
    })) as string;
    const extra = (await encodeCursor(['events'], {
      seq: '0000000000000001',
      since: NOW.toISOString(),
      more: 'x',
    })) as string;
    const good = await encodeFeedCursor({ seq: 7, since: NOW });
    const [, mac] = good.split('.');
    const altered = `${Buffer.from(JSON.stringify({ seq: '0000000000000008', since: NOW.toISOString() })).toString('base64url')}.${mac}`;

    for (const after of ['', 'x', listCursor, sameKeyOtherShape, unsafe, extra, altered]) {
      const error = await refusal(decodeFeedCursor(after, NOW));
      expect(error, after).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).details).toEqual([
        expect.objectContaining({ loc: ['query', 'after'], type: 'cursor' }),
      ]);
    }
  });

  it("moves its since to now at the feed's end, else to the last event's publication, floored a day short of the retention", () => {
    expect(nextSince(true, ago(5 * DAY_MS), NOW)).toEqual(NOW);
    expect(nextSince(false, undefined, NOW)).toEqual(NOW);
    expect(nextSince(false, ago(5 * DAY_MS), NOW)).toEqual(ago(5 * DAY_MS));
    expect(nextSince(false, ago(40 * DAY_MS), NOW)).toEqual(ago(29 * DAY_MS));
    // A clock a little ahead at the publisher never makes a cursor from the future.
    expect(nextSince(false, new Date(NOW.getTime() + 1000), NOW)).toEqual(NOW);
  });
});
