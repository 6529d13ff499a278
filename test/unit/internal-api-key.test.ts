import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { matchesAnyKey, parseKeyList } from '#lib/auth/internal-api-key.ts';

describe('internal API keys', () => {
  it('accepts either key during a rotation and nothing else', () => {
    const keys = parseKeyList('ik_current, ik_previous');

    expect(keys).toEqual(['ik_current', 'ik_previous']);
    expect(matchesAnyKey('ik_current', keys)).toBe(true);
    expect(matchesAnyKey('ik_previous', keys)).toBe(true);
    expect(matchesAnyKey('ik_curren', keys)).toBe(false);
    expect(matchesAnyKey('', keys)).toBe(false);
  });

  it('reads the JSON shapes a Secrets Manager secret takes', () => {
    expect(parseKeyList('["a","b"]')).toEqual(['a', 'b']);
    expect(parseKeyList('{"current":"a","previous":"b"}')).toEqual(['a', 'b']);
    expect(() => parseKeyList('{"current":1}')).toThrow();
  });

  it('matches a candidate exactly when it is one of the keys', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ minLength: 1 }), { maxLength: 3 }), fc.string(), (keys, candidate) => {
        expect(matchesAnyKey(candidate, keys)).toBe(keys.includes(candidate));
      }),
    );
  });
});
