import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isTimeZone } from '#lib/records/fields.ts';

/** The rule the check had before it looked canonical names up in the runtime's list. */
function formatterAccepts(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return value.includes('/') || value === 'UTC';
  } catch {
    return false;
  }
}

describe('isTimeZone', () => {
  it('accepts every canonical zone, and aliases and other spellings exactly as a formatter does', () => {
    const names = [
      ...Intl.supportedValuesOf('timeZone'),
      'UTC',
      'US/Pacific',
      'Asia/Calcutta',
      'Europe/Kiev',
      'europe/berlin',
      'Etc/GMT+5',
      'GMT',
      'CET',
      'Mars/Phobos',
      'Europe/Berlin/',
      '../Europe/Berlin',
      '',
    ];
    for (const name of names) expect(isTimeZone(name), name).toBe(formatterAccepts(name));
    expect(isTimeZone('Europe/Berlin')).toBe(true);
    expect(isTimeZone('Mars/Phobos')).toBe(false);
  });

  it('agrees with a formatter on arbitrary strings', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (value) => {
        expect(isTimeZone(value)).toBe(formatterAccepts(value));
      }),
    );
  });
});
