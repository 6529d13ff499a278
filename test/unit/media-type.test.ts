import { describe, expect, it } from 'vitest';
import { UnsupportedMediaTypeError } from '#lib/http/errors.ts';
import { normalisedContentType, parseMediaType } from '#lib/http/media-type.ts';

describe('media types', () => {
  it('reads type and parameter names case-insensitively, values unquoted and as sent', () => {
    expect(parseMediaType('Application/JSON; Charset="UTF-8"')).toEqual({
      essence: 'application/json',
      params: { charset: 'UTF-8' },
    });
    expect(parseMediaType('multipart/form-data; boundary=AbC')?.params.boundary).toBe('AbC');
    expect(parseMediaType('not a type')).toBeUndefined();
    expect(parseMediaType(undefined)).toBeUndefined();
  });

  it('lower-cases the media type for the parsers and keeps the parameters as sent', () => {
    expect(normalisedContentType('APPLICATION/JSON', true)).toBe('application/json');
    expect(normalisedContentType('Application/Json ; charset=utf-8', true)).toBe(
      'application/json; charset=utf-8',
    );
    expect(normalisedContentType('MULTIPART/FORM-DATA; boundary=XyZ', false)).toBe(
      'multipart/form-data; boundary=XyZ',
    );
    expect(normalisedContentType('application/json; charset=utf8', true)).toBe(
      'application/json; charset=utf8',
    );
    expect(normalisedContentType(undefined, true)).toBeUndefined();
  });

  it.each([['utf-16'], ['UTF-16LE'], ['"iso-8859-1"'], ['us-ascii'], ['']])(
    'refuses a text body declared as charset=%s (415)',
    (charset) => {
      expect(() => normalisedContentType(`application/json; charset=${charset}`, true)).toThrow(
        UnsupportedMediaTypeError,
      );
    },
  );
});
