import { describe, expect, it } from 'vitest';
import { NETWORK_DELAY_MS } from '../../bench/edits-apply.ts';
import {
  CLIENT_ROUND_TRIP_MS,
  crossoverBytes,
  fitCost,
  leastRatioAllowed,
  type PhotoDeliveryRow,
} from '../../bench/photo-delivery.ts';
import { spread } from '../../bench/stats.ts';

const MB = 1024 * 1024;
/** A row whose medians lie on the given lines (ms at size in MB). */
const row = (megabytes: number, inline: (mb: number) => number, redirect: (mb: number) => number) =>
  ({
    bytes: megabytes * MB,
    inline: spread([inline(megabytes)]),
    redirect: spread([redirect(megabytes)]),
  }) as PhotoDeliveryRow;

describe('the bench’s photo crossover', () => {
  const inlineLine = (mb: number) => 60 + 30 * mb;
  const redirectLine = (mb: number) => 80 + 5 * mb;
  const rows = [0.25, 1, 2, 4].map((mb) => row(mb, inlineLine, redirectLine));

  it('fits the line through the medians of each way', () => {
    expect(fitCost(rows, 'inline')).toEqual({
      fixedMs: expect.closeTo(60),
      msPerMegabyte: expect.closeTo(30),
    });
    expect(fitCost(rows, 'redirect')).toEqual({
      fixedMs: expect.closeTo(80),
      msPerMegabyte: expect.closeTo(5),
    });
  });

  it('puts the crossover where the lines meet, later for a farther client, at 0 when the 303 always wins', () => {
    const inline = fitCost(rows, 'inline');
    const redirect = fitCost(rows, 'redirect');

    expect(crossoverBytes(inline, redirect)).toBeCloseTo(0.8 * MB, -3);
    expect(crossoverBytes(inline, redirect, CLIENT_ROUND_TRIP_MS + 25)).toBeCloseTo(1.8 * MB, -3);
    expect(crossoverBytes(inline, redirect, CLIENT_ROUND_TRIP_MS - 25)).toBe(0);
  });

  it('has no crossover when inline costs no more per byte than the 303', () => {
    const flat = [0.25, 4].map((mb) => row(mb, (x) => 60 + 5 * x, redirectLine));

    expect(crossoverBytes(fitCost(flat, 'inline'), fitCost(flat, 'redirect'))).toBeUndefined();
  });

  it('allows no less than a bare read plus the pointer and object calls inline, plus a client round trip and the pointer for a 303', () => {
    expect(leastRatioAllowed(40)).toEqual({
      inline: (40 + 2 * NETWORK_DELAY_MS) / 40,
      redirect: (40 + CLIENT_ROUND_TRIP_MS + NETWORK_DELAY_MS) / 40,
    });
    // The slower the bare read (a larger photo), the less the fixed calls weigh.
    expect(leastRatioAllowed(35).inline).toBeGreaterThan(1.5);
    expect(leastRatioAllowed(80).inline).toBeLessThan(1.5);
  });
});
