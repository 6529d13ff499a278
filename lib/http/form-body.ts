import httpUrlencodeBodyParser from '@middy/http-urlencode-body-parser';
import { assertBodySize, type BodyParser, runParser } from '#lib/http/body-parsers.ts';
import { UnsupportedMediaTypeError } from '#lib/http/errors.ts';

/**
 * An HTML form body (the OAuth token and revoke endpoints): @middy/http-urlencode-body-parser after
 * the size check. A parameter sent twice arrives as an array, which the route's schema (strings
 * only) rejects, as RFC 6749 §3.2 asks.
 */
export const formBody: BodyParser = {
  format: 'form',
  middleware(maxBytes) {
    const parser = httpUrlencodeBodyParser();
    return {
      before: async (request) => {
        request.event.body ??= '';
        assertBodySize(request.event, maxBytes);
        await runParser(
          parser,
          request,
          '@middy/http-urlencode-body-parser',
          () => new UnsupportedMediaTypeError('Send the body as application/x-www-form-urlencoded'),
        );
      },
    };
  },
};
