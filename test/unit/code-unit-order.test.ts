import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { byCodeUnits } from '#lib/db/code-unit-order.ts';

/** The sorts that compare stored strings by code units, in place of localeCompare. */
describe('byCodeUnits', () => {
  it('orders ISO 8601 timestamps as the instants they name', () => {
    const instant = fc.date({
      min: new Date('2000-01-01T00:00:00Z'),
      max: new Date('2099-12-31T23:59:59Z'),
      noInvalidDate: true,
    });
    fc.assert(
      fc.property(instant, instant, (a, b) => {
        expect(Math.sign(byCodeUnits(a.toISOString(), b.toISOString()))).toBe(
          Math.sign(a.getTime() - b.getTime()),
        );
      }),
    );
  });

  it('orders e-mail addresses as DynamoDB orders them in a sort key (by their UTF-8 bytes)', () => {
    const email = fc.emailAddress().map((address) => address.toLowerCase());
    fc.assert(
      fc.property(email, email, (a, b) => {
        expect(Math.sign(byCodeUnits(a, b))).toBe(Math.sign(Buffer.compare(Buffer.from(a), Buffer.from(b))));
      }),
    );
  });
});
